import { ceilDiv } from '../algorithms/integer-math.js';
import { assertKeyKind, assertPrefix, identifierKey, toIdentifier } from '../keys/key.builder.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import { capacity, MAX_PERIOD_MS } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import type { Operation, PolicyOutcome, PolicySpec, SluiceStore } from '../store/store.types.js';
import { toPolicySpec } from './policy-spec.js';
import { summarize, type AppliedOverride, type Decision, type PolicyDecision } from './decision.js';

export interface SluiceEngineOptions {
  store: SluiceStore;
  /** Start of every Redis key. Default 'sluice'. */
  prefix?: string;
  /** Policies known from the start; more can be set later through `policies`. */
  policies?: unknown[];
  /** Epoch ms, used only to tell whether an override has expired. Default Date.now. */
  now?: () => number;
}

export interface ConsumeOptions {
  /** Units this request costs. Default: each policy's own cost. */
  cost?: number;
  /** What the identifier is (ip, user, header:x-api-key …). Default: the policies' `key`. */
  keyKind?: string;
}

const ACTION_KEY = /^[A-Za-z0-9_-]{1,32}$/;
const SPECS_PER_POLICY = 64;
/** isActionAllowed counts in a sliding log, one entry per action. */
const MAX_ACTION_COUNT = 100_000;

interface Target {
  key: string;
  identifier: string;
  policies: Policy[];
}

/** The framework-free API: policies by name, decided by one store call per request. */
export class SluiceEngine {
  readonly policies = new PolicyRegistry();
  private readonly specCache = new WeakMap<Policy, Map<string, PolicySpec>>();
  private readonly store: SluiceStore;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(options: SluiceEngineOptions) {
    this.store = options.store;
    this.prefix = options.prefix ?? 'sluice';
    this.now = options.now ?? Date.now;
    assertPrefix(this.prefix);
    for (const policy of options.policies ?? []) this.policies.set(policy);
  }

  /** Decides and, when every enforced policy admits the request, charges all of them. */
  consume(
    policies: string | readonly string[],
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<Decision> {
    return this.decide('consume', policies, identifier, options);
  }

  /** What consume would decide, without charging anything. */
  peek(
    policies: string | readonly string[],
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<Decision> {
    return this.decide('peek', policies, identifier, options);
  }

  /** Gives back what an admitted request was charged (count: 'failures' after a success). */
  async refund(
    policies: string | readonly string[],
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<void> {
    const target = this.target(policies, identifier, options);
    await this.run('refund', target, this.specs(target, options.cost));
  }

  /** Forgets an identifier's counters; blocks and offences stay. */
  async reset(
    policies: string | readonly string[],
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<void> {
    const target = this.target(policies, identifier, options);
    await this.run('reset', target, this.specs(target, undefined));
  }

  /** Blocks an identifier under a policy for durationMs, whatever its counters say. */
  async block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: Pick<ConsumeOptions, 'keyKind'> = {},
  ): Promise<{ untilMs: number }> {
    if (!Number.isSafeInteger(durationMs) || durationMs < 1 || durationMs > 365 * 86_400_000) {
      throw new RangeError(
        `durationMs: must be an integer from 1 to 31536000000, got ${durationMs}`,
      );
    }
    const target = this.target(policy, identifier, options);
    const result = await this.run('block', target, this.specs(target, undefined), durationMs);
    return { untilMs: ceilDiv((result[0] as PolicyOutcome).blockedUntil, 1000) };
  }

  /** Lifts a block. Resolves false when the identifier was not blocked. */
  async unblock(
    policy: string,
    identifier: string,
    options: Pick<ConsumeOptions, 'keyKind'> = {},
  ): Promise<boolean> {
    const target = this.target(policy, identifier, options);
    const outcomes = await this.run('unblock', target, this.specs(target, undefined));
    return outcomes.some((outcome) => outcome.blockedUntil > 0);
  }

  /**
   * The seeds' question, "may this user do this action again?": at most maxCount times in any
   * periodSec seconds, counted in a sliding log.
   */
  async isActionAllowed(
    userId: string,
    actionKey: string,
    periodSec: number,
    maxCount: number,
  ): Promise<boolean> {
    if (!ACTION_KEY.test(actionKey)) {
      throw new RangeError(
        `actionKey: must be 1-32 letters, digits, '_' or '-', got ${JSON.stringify(actionKey)}`,
      );
    }
    const periodMs = Math.round(periodSec * 1000);
    if (!Number.isFinite(periodSec) || periodMs < 1 || periodMs > MAX_PERIOD_MS) {
      throw new RangeError(`periodSec: must be from 0.001 to 31536000 seconds, got ${periodSec}`);
    }
    if (!Number.isSafeInteger(maxCount) || maxCount < 1 || maxCount > MAX_ACTION_COUNT) {
      throw new RangeError(`maxCount: must be an integer from 1 to 100000, got ${maxCount}`);
    }
    const name = `action.${actionKey}.${periodMs}.${maxCount}`;
    if (this.policies.get(name) === undefined) {
      this.policies.set({ name, algorithm: 'sliding-log', limit: maxCount, periodMs, key: 'user' });
    }
    return (await this.consume(name, userId)).allowed;
  }

  private target(
    names: string | readonly string[],
    identifier: string,
    options: Pick<ConsumeOptions, 'keyKind'>,
  ): Target {
    const list = typeof names === 'string' ? [names] : names;
    if (list.length === 0) throw new RangeError('policies: name at least one policy');
    const repeated = list.find((name, index) => list.indexOf(name) !== index);
    if (repeated !== undefined) {
      throw new RangeError(`policies: ${JSON.stringify(repeated)} is named twice`);
    }
    const policies = this.policies.resolve(list);
    const keyKind = options.keyKind ?? (policies[0] as Policy).key;
    const differing = policies.filter((policy) => policy.key !== keyKind);
    if (options.keyKind === undefined && differing.length > 0) {
      throw new RangeError(
        `policies: ${policies.map((p) => `${p.name} counts by ${p.key}`).join(', ')}; decide them separately or pass keyKind`,
      );
    }
    assertKeyKind(keyKind);
    return {
      key: identifierKey(this.prefix, keyKind, toIdentifier(identifier)),
      identifier,
      policies,
    };
  }

  private override(policy: Policy, identifier: string): AppliedOverride | undefined {
    if (policy.overrides.length === 0) return undefined;
    const now = this.now();
    return policy.overrides.find(
      (o) => o.identifier === identifier && (o.expiresAt === null || o.expiresAt > now),
    );
  }

  private specs(target: Target, cost: number | undefined): PolicySpec[] {
    return target.policies.map((policy) =>
      this.spec(policy, this.override(policy, target.identifier), cost),
    );
  }

  /**
   * The policy as the store needs it for this request: its override's limit and the request's
   * cost. A policy serves few distinct (limit, cost) pairs, so each is built once and reused.
   */
  private spec(
    policy: Policy,
    override: AppliedOverride | undefined,
    cost: number | undefined,
  ): PolicySpec {
    const limit = override?.limit || policy.limit;
    const charge = cost ?? policy.cost;
    let byRate = this.specCache.get(policy);
    const cacheKey = `${limit} ${charge}`;
    const cached = byRate?.get(cacheKey);
    if (cached !== undefined) return cached;
    const room = capacity(policy.algorithm, limit, policy.burst);
    if (!Number.isSafeInteger(charge) || charge < 1 || charge > room) {
      throw new RangeError(
        `cost: must be an integer from 1 to ${room} for policy ${policy.name}, got ${charge}`,
      );
    }
    const spec = toPolicySpec(policy, limit, charge);
    if (byRate === undefined || byRate.size >= SPECS_PER_POLICY) {
      byRate = new Map();
      this.specCache.set(policy, byRate);
    }
    byRate.set(cacheKey, spec);
    return spec;
  }

  private async run(
    op: Operation,
    target: Target,
    specs: PolicySpec[],
    durationMs?: number,
  ): Promise<PolicyOutcome[]> {
    const result = await this.store.run({ op, key: target.key, specs, durationMs });
    return result.outcomes;
  }

  private async decide(
    op: 'consume' | 'peek',
    names: string | readonly string[],
    identifier: string,
    options: ConsumeOptions,
  ): Promise<Decision> {
    const target = this.target(names, identifier, options);
    const settled: PolicyDecision[] = [];
    const counted: Array<{ policy: Policy; override: AppliedOverride | undefined }> = [];
    for (const policy of target.policies) {
      const override = this.override(policy, identifier);
      if (policy.mode === 'off' || override?.unlimited) {
        settled.push(this.fixed(policy, 'ok', override));
      } else if (override?.limit === 0) {
        settled.push(
          this.fixed(policy, policy.mode === 'shadow' ? 'shadow' : 'denylist', override),
        );
      } else {
        counted.push({ policy, override });
      }
    }
    const denied = settled.some((decision) => decision.reason === 'denylist');
    if (counted.length === 0 || denied) return summarize(settled, !denied);
    const specs = counted.map(({ policy, override }) => this.spec(policy, override, options.cost));
    const result = await this.store.run({ op, key: target.key, specs });
    const decided = result.outcomes.map((outcome, index) => {
      const { policy, override } = counted[index] as (typeof counted)[number];
      return this.toDecision(policy, specs[index] as PolicySpec, outcome, override);
    });
    return summarize(settled.length === 0 ? decided : [...decided, ...settled], result.admitted);
  }

  private toDecision(
    policy: Policy,
    spec: PolicySpec,
    outcome: PolicyOutcome,
    override: AppliedOverride | undefined,
  ): PolicyDecision {
    const decision: PolicyDecision = {
      allowed: outcome.allowed,
      policy: policy.name,
      algorithm: policy.algorithm,
      limit: spec.limit,
      remaining: outcome.remaining,
      resetMs: ceilDiv(outcome.reset, 1000),
      retryAfterMs: ceilDiv(outcome.retry, 1000),
      delayMs: ceilDiv(outcome.delay, 1000),
      reason: outcome.reason,
    };
    if (outcome.blockedUntil > 0) {
      decision.blocked = { untilMs: ceilDiv(outcome.blockedUntil, 1000), offence: outcome.offence };
    }
    if (override !== undefined) decision.override = override;
    return decision;
  }

  /**
   * A decision made without the store: a policy that is off, or an override that settles it
   * (a denylist entry under a shadow policy only reports what it would have done).
   */
  private fixed(
    policy: Policy,
    reason: 'ok' | 'denylist' | 'shadow',
    override: AppliedOverride | undefined,
  ): PolicyDecision {
    const allowed = reason !== 'denylist';
    const open = reason === 'ok';
    const retryAfterMs = allowed
      ? 0
      : override?.expiresAt != null
        ? Math.max(0, override.expiresAt - this.now())
        : policy.periodMs;
    return {
      allowed,
      policy: policy.name,
      algorithm: policy.algorithm,
      limit: open ? policy.limit : 0,
      remaining: open ? policy.limit : 0,
      resetMs: 0,
      retryAfterMs,
      delayMs: 0,
      reason,
      ...(override !== undefined ? { override } : {}),
    };
  }
}
