import { ceilDiv } from '../algorithms/integer-math.js';
import { systemClock, type Clock } from '../clock/clock.js';
import { assertPrefix } from '../keys/key.builder.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import type {
  Operation,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
} from '../store/store.types.js';
import { actionPolicy } from './action.policy.js';
import { callTarget, type CallTarget, type PolicySelection } from './call.target.js';
import { inCandidateSample } from './candidate.sample.js';
import { PolicySpecCache, toCandidateSpec } from './policy-spec.js';
import { overridesOf } from './override.index.js';
import { AccessLists } from '../lists/access-lists.js';
import {
  delayInMs,
  listedDecision,
  settledDecision,
  summarize,
  type AppliedOverride,
  type Decision,
  type PolicyDecision,
} from './decision.js';

/** What a SluiceEngine decides with: its store, key prefix, first policies and clock. */
export interface SluiceEngineOptions {
  /** Where counts live: a RedisStore, an EventualStore over one, or a MemoryStore. */
  store: SluiceStore;
  /** Start of every Redis key. Default 'sluice'. */
  prefix?: string;
  /** Policies known from the start; more can be set later through `policies`. */
  policies?: unknown[];
  /**
   * The time, in epoch microseconds like every Clock in Sluice: tells whether an override or a
   * candidate has expired. Default the system clock.
   */
  clock?: Clock;
}

/** How one call counts: its cost, the kind of identifier, the route it decides for. */
export interface ConsumeOptions {
  /** Units this request costs. Default: each policy's own cost. */
  cost?: number;
  /** What the identifier is (ip, user, header:x-api-key …). Default: the policies' `key`. */
  keyKind?: string;
  /** The handler deciding (`Controller.method`): labels the penalty events this call sets off. */
  route?: string;
  /**
   * The request's tier (a plan: `free`, `pro`), as the app resolved it: each policy that names it
   * decides at its rate, the others at their own. An operator's override assigning a tier wins.
   */
  tier?: string;
  /**
   * The identifier's own renewal day for calendar month policies (its billing day, 1–31), as the
   * app resolved it; an operator's override naming one wins (docs/guide.md, "Calendar quotas").
   */
  anchorDay?: number;
  /**
   * The request's client, which allow and deny list entries of an address or a User-Agent match.
   * The guard passes one object per request, shared by its calls, so an entry that matches several
   * of them is counted once; identifier entries need nothing more.
   */
  client?: { address?: string | undefined; userAgent?: string | undefined };
}

/**
 * Options of the operations that act on an identifier's key rather than decide: reset, block,
 * lift, forget.
 */
export interface KeyOptions {
  /** What the identifier is. Default: the policies' `key`. */
  keyKind?: string;
  /**
   * The identifier's stored key (`#h:` and a digest), as a penalty event's `key` gives it for an
   * identifier over 256 characters: it names the counters, and `identifier` only labels them
   * (docs/operations.md, "Identifiers too long to show").
   */
  key?: string;
}

/** A decision, and the policies whose counters its store call charged: what a refund gives back. */
export interface Charged {
  /** The decision on the request. */
  decision: Decision;
  /** Empty when nothing was charged: refused, settled without the store, or decided elsewhere. */
  charged: readonly Policy[];
  /**
   * The lease the charged concurrency policies hold a slot under, until `release` ends it
   * (docs/algorithms.md, "Concurrency"); absent when none was charged.
   */
  lease?: string;
}

/** A quota's current period for one identifier: what `grant` and `quota` answer. */
export interface Quota {
  /** The policy (a fixed-window, usually a calendar one). */
  policy: string;
  /** The identifier, as given. */
  identifier: string;
  /** Units counted in the period. */
  used: number;
  /** Units it may still take: limit + granted - used, at least 0. */
  remaining: number;
  /** The period's limit: the tier's when one applies, else the override's or the policy's. */
  limit: number;
  /** Credits granted for the period (negative: debited). */
  granted: number;
  /** When the period ends and its count and credits with it, epoch ms. */
  resetAt: number;
  /** The tier whose limit applies, or null. */
  tier: string | null;
}

/** What a grant or a quota read needs beyond the policy and identifier. */
export interface QuotaOptions extends KeyOptions {
  /** The identifier's tier, as the app resolves it; an override assigning one wins. */
  tier?: string;
  /** The identifier's own renewal day, as for consume. */
  anchorDay?: number;
}

/** The most credits one grant may add or take away. */
export const MAX_GRANT = 1_000_000_000;

const NO_PROPOSALS: never[] = [];
const NOTHING_CHARGED: readonly Policy[] = [];

/**
 * The framework-free API: policies by name (or resolved from `policies`), decided by one store
 * call per request.
 */
export class SluiceEngine {
  /** The policies in force: set, replace and delete them here. */
  readonly policies = new PolicyRegistry();
  /** The allow and deny lists in force, as the last snapshot published them. */
  readonly lists = new AccessLists();
  private readonly specCache = new PolicySpecCache(() => this.nowMs());
  private readonly candidateSpecs = new PolicySpecCache(() => this.nowMs(), toCandidateSpec);
  private readonly store: SluiceStore;
  private readonly prefix: string;
  private readonly clock: Clock;
  /** Leases are `<this engine's tag>.<a count>`: unique across instances sharing a Redis. */
  private readonly leaseTag = Math.random().toString(36).slice(2, 10);
  private leases = 0;

  constructor(options: SluiceEngineOptions) {
    this.store = options.store;
    this.prefix = options.prefix ?? 'sluice';
    this.clock = options.clock ?? systemClock;
    assertPrefix(this.prefix);
    for (const policy of options.policies ?? []) this.policies.set(policy);
  }

  /** Decides and, when every enforced policy admits the request, charges all of them. */
  async consume(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<Decision> {
    return (await this.charge(this.target(policies, identifier, options), options)).decision;
  }

  /**
   * What an operation works on, resolved once: the selected policies (each defined, each once),
   * the key kind they count under and the identifier's key. Throws on an unknown policy, a key
   * kind they do not share, or an invalid identifier.
   */
  target(
    policies: PolicySelection,
    identifier: string,
    options: Pick<KeyOptions, 'keyKind' | 'key'> = {},
  ): CallTarget {
    return callTarget(
      this.policies,
      this.prefix,
      policies,
      identifier,
      options.keyKind,
      options.key,
    );
  }

  /** consume on a resolved target, saying which policies its store call charged. */
  charge(target: CallTarget, options: ConsumeOptions = {}): Promise<Charged> {
    return this.decide('consume', target, options);
  }

  /** What consume would decide, without charging anything; `options.key` as for reset. */
  async peek(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<Decision> {
    const target = this.target(policies, identifier, options);
    return (await this.decide('peek', target, options)).decision;
  }

  /** Gives back what an admitted request was charged (count: 'failures' after a success). */
  async refund(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<void> {
    const target = this.target(policies, identifier, options);
    await this.run(
      'refund',
      target,
      this.specs(target, options.cost, options.tier, options.anchorDay),
    );
  }

  /**
   * Ends a request's lease: the slots its concurrency policies held (`Charged.lease`, or a
   * decision's `lease`). Other policies are left as they are; releasing twice does nothing more.
   */
  async release(
    policies: PolicySelection,
    identifier: string,
    lease: string,
    options: Pick<ConsumeOptions, 'keyKind' | 'cost' | 'tier'> = {},
  ): Promise<void> {
    if (!LEASE.test(lease))
      throw new RangeError(`lease: must be a lease consume gave, got ${JSON.stringify(lease)}`);
    const target = this.target(policies, identifier, options);
    const specs = this.specs(target, options.cost, options.tier).filter(
      (spec) => spec.algorithm === 'concurrency',
    );
    if (specs.length === 0) return;
    await this.store.run({ op: 'release', key: target.key, specs, lease });
  }

  /**
   * Adds credits to an identifier's quota for the period now running (negative: debits them),
   * and says what the quota holds after (docs/guide.md, "Credits"). They end with the period.
   */
  async grant(
    policy: string,
    identifier: string,
    amount: number,
    options: QuotaOptions = {},
  ): Promise<Quota> {
    if (!Number.isSafeInteger(amount) || Math.abs(amount) > MAX_GRANT || amount === 0) {
      throw new RangeError(
        `amount: must be a non-zero integer from -${MAX_GRANT} to ${MAX_GRANT}, got ${amount}`,
      );
    }
    return this.quotaCall(policy, identifier, amount, options);
  }

  /** What an identifier's quota holds in the period now running: used, remaining, credits. */
  quota(policy: string, identifier: string, options: QuotaOptions = {}): Promise<Quota> {
    return this.quotaCall(policy, identifier, 0, options);
  }

  /**
   * Charges `units` more to a fixed-window policy for a request already admitted (negative:
   * gives them back), past its limit if need be: the real cost settled after the response
   * (docs/guide.md, "Charges settled after the response").
   */
  async settle(
    policy: string,
    identifier: string,
    units: number,
    options: QuotaOptions = {},
  ): Promise<Quota> {
    if (!Number.isSafeInteger(units) || Math.abs(units) > MAX_GRANT || units === 0) {
      throw new RangeError(
        `units: must be a non-zero integer from -${MAX_GRANT} to ${MAX_GRANT}, got ${units}`,
      );
    }
    return this.quotaCall(policy, identifier, units, options, 'settle');
  }

  /** Forgets an identifier's counters; blocks and offences stay. */
  async reset(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<void> {
    const target = this.target(policies, identifier, options);
    await this.run('reset', target, this.specs(target, undefined));
  }

  /** Blocks an identifier under a policy for durationMs, whatever its counters say. */
  async block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: KeyOptions = {},
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

  /**
   * Forgets an identifier's offences under a policy: the offence level and the rejections counted
   * towards the next block, so its next block is a first one again. A block still in force ends
   * with them (lift it with `unblock` first to tell the other instances and the audit).
   */
  async forgetOffences(
    policy: string,
    identifier: string,
    options: KeyOptions = {},
  ): Promise<void> {
    const target = this.target(policy, identifier, options);
    await this.run('forget', target, this.specs(target, undefined));
  }

  /** Lifts a block. Resolves false when the identifier was not blocked. */
  async unblock(policy: string, identifier: string, options: KeyOptions = {}): Promise<boolean> {
    return (await this.lift(policy, identifier, options)) !== null;
  }

  /** Lifts a block; resolves when it would have ended, or null when there was none. */
  async lift(
    policy: string,
    identifier: string,
    options: KeyOptions = {},
  ): Promise<{ untilMs: number } | null> {
    const target = this.target(policy, identifier, options);
    const [outcome] = await this.run('unblock', target, this.specs(target, undefined));
    const blockedUntil = outcome?.blockedUntil ?? 0;
    return blockedUntil > 0 ? { untilMs: ceilDiv(blockedUntil, 1000) } : null;
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
    const policy = actionPolicy(actionKey, periodSec, maxCount);
    if (this.policies.get(policy.name) === undefined) this.policies.set(policy);
    return (await this.consume(policy.name, userId)).allowed;
  }

  private async quotaCall(
    policy: string,
    identifier: string,
    amount: number,
    options: QuotaOptions,
    op: 'grant' | 'settle' = 'grant',
  ): Promise<Quota> {
    const target = this.target(policy, identifier, options);
    const live = target.policies[0] as Policy;
    if (live.algorithm !== 'fixed-window') {
      throw new RangeError(
        `policy: ${live.name} is a ${live.algorithm} policy; credits apply to quotas (fixed-window)`,
      );
    }
    const override = this.override(live, target);
    const spec = this.spec(live, override, undefined, options.tier, options.anchorDay);
    const [outcome] = await this.run(op, target, [spec], undefined, amount);
    const { remaining = 0, reset = 0, quota } = outcome ?? {};
    return {
      policy: live.name,
      identifier,
      used: quota?.used ?? 0,
      remaining,
      limit: spec.limit,
      granted: quota?.granted ?? 0,
      resetAt: ceilDiv(this.clock() + reset, 1000),
      tier: spec.tier ?? null,
    };
  }

  /** Override and candidate expiries are epoch ms. */
  private nowMs(): number {
    return Math.floor(this.clock() / 1000);
  }

  /** The identifier's override in force, written for the kind of identifier it is counted as. */
  private override(policy: Policy, target: CallTarget): AppliedOverride | undefined {
    if (policy.overrides.length === 0) return undefined;
    return overridesOf(policy).find(target.keyKind, target.identifier, this.nowMs());
  }

  /** Refund and reset reach the policies' candidates too, so their counts stay comparable. */
  private specs(
    target: CallTarget,
    cost: number | undefined,
    tier?: string,
    anchorDay?: number,
  ): PolicySpec[] {
    const specs = target.policies.map((policy) =>
      this.spec(policy, this.override(policy, target), cost, tier, anchorDay),
    );
    const proposed = this.proposals(target, cost, target.policies, tier);
    return proposed.length === 0 ? specs : [...specs, ...proposed.map((each) => each.spec)];
  }

  /**
   * The candidates in force of `policies`, as specs for this identifier when it is in their
   * sample. A candidate that cannot be decided for it (its override is unlimited or a deny-list entry, its mode is off, the cost
   * does not fit it) is left out: a candidate never changes what the live policies answer.
   */
  private proposals(
    target: CallTarget,
    cost: number | undefined,
    policies: readonly Policy[] = target.policies,
    tier?: string,
  ): Array<{ policy: Policy; spec: PolicySpec; override: AppliedOverride | undefined }> {
    const { identifier } = target;
    // The usual request has no candidate: no array is built for it.
    if (!policies.some((policy) => policy.candidate)) return NO_PROPOSALS;
    const found: Array<{
      policy: Policy;
      spec: PolicySpec;
      override: AppliedOverride | undefined;
    }> = [];
    for (const live of policies) {
      const candidate = live.candidate;
      if (!candidate || candidate.expiresAt <= this.nowMs()) continue;
      if (!inCandidateSample(identifier, candidate.samplePercent)) continue;
      const policy = candidate.policy;
      const override = this.override(policy, target);
      if (policy.mode === 'off' || override?.unlimited || override?.limit === 0) continue;
      try {
        const applied = tierOf(policy, override, tier);
        const spec = this.candidateSpecs.at(
          policy,
          override?.limit || rateLimit(policy, applied),
          cost ?? policy.cost,
          applied,
        );
        found.push({ policy, spec, override });
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
    }
    return found;
  }

  /**
   * The policy as the store needs it for this request: its override's limit, else its tier's
   * (the override's, else the request's), else its own; the request's cost.
   */
  private spec(
    policy: Policy,
    override: AppliedOverride | undefined,
    cost: number | undefined,
    tier: string | undefined,
    anchorDay?: number,
  ): PolicySpec {
    const applied = tierOf(policy, override, tier);
    return this.specCache.at(
      policy,
      override?.limit || rateLimit(policy, applied),
      cost ?? policy.cost,
      applied,
      override?.anchorDay ?? anchorDay,
    );
  }

  private async run(
    op: Operation,
    target: CallTarget,
    specs: PolicySpec[],
    durationMs?: number,
    amount?: number,
  ): Promise<PolicyOutcome[]> {
    const call: StoreCall = { op, key: target.key, specs };
    if (durationMs !== undefined) call.durationMs = durationMs;
    if (amount !== undefined) call.amount = amount;
    const result = await this.store.run(call);
    return result.outcomes;
  }

  private async decide(
    op: 'consume' | 'peek',
    target: CallTarget,
    options: ConsumeOptions,
  ): Promise<Charged> {
    const settled: PolicyDecision[] = [];
    const counted: Array<{ policy: Policy; override: AppliedOverride | undefined }> = [];
    // The lists come before the policies' own overrides: a deny entry refuses whatever an
    // override grants (docs/guide.md, allow and deny lists). A peek counts no match.
    const listed =
      this.lists.size === 0
        ? undefined
        : this.lists.decide(
            target.policies,
            {
              keyKind: target.keyKind,
              identifier: target.identifier,
              address: options.client?.address,
              userAgent: options.client?.userAgent,
              request: options.client,
            },
            this.nowMs(),
            op === 'consume',
          );
    for (const policy of target.policies) {
      const entry = listed?.get(policy);
      if (entry !== undefined && policy.mode !== 'off') {
        settled.push(listedDecision(policy, entry, this.nowMs()));
        continue;
      }
      const override = this.override(policy, target);
      if (policy.mode === 'off' || override?.unlimited) {
        settled.push(settledDecision(policy, 'ok', override, this.nowMs()));
      } else if (override?.limit === 0) {
        settled.push(
          settledDecision(
            policy,
            policy.mode === 'shadow' ? 'shadow' : 'denylist',
            override,
            this.nowMs(),
          ),
        );
      } else {
        counted.push({ policy, override });
      }
    }
    const denied = settled.some((decision) => decision.reason === 'denylist');
    if (counted.length === 0 || denied) {
      return { decision: summarize(settled, !denied), charged: NOTHING_CHARGED };
    }
    const specs = counted.map(({ policy, override }) =>
      this.spec(policy, override, options.cost, options.tier, options.anchorDay),
    );
    const proposed = this.proposals(
      target,
      options.cost,
      counted.map((each) => each.policy),
      options.tier,
    );
    // A policy's candidate rides in the same call: no extra round trip.
    const sent = proposed.length === 0 ? specs : [...specs, ...proposed.map((each) => each.spec)];
    const call: StoreCall = { op, key: target.key, specs: sent };
    // A lease only for calls that take a slot: the usual request builds no string for it.
    if (sent.some(holdsSlots)) call.lease = `${this.leaseTag}.${(this.leases++).toString(36)}`;
    const result = await this.store.run(call);
    const decided = counted.map(({ policy, override }, index) =>
      this.toDecision(
        policy,
        specs[index] as PolicySpec,
        result.outcomes[index] as PolicyOutcome,
        override,
      ),
    );
    const decision = summarize(
      settled.length === 0 ? decided : [...decided, ...settled],
      result.admitted,
    );
    if (proposed.length > 0) {
      decision.candidates = proposed.map(({ policy, spec, override }, index) =>
        this.toDecision(
          policy,
          spec,
          result.outcomes[specs.length + index] as PolicyOutcome,
          override,
        ),
      );
    }
    // All or nothing: an admitted call charged each counted policy that admitted it (a shadow
    // policy that would have refused was not charged); a refused one charged none.
    const charged =
      op === 'consume' && result.admitted
        ? counted
            .filter((_, index) => (decided[index] as PolicyDecision).reason === 'ok')
            .map((each) => each.policy)
        : NOTHING_CHARGED;
    if (call.lease !== undefined && charged.some(holdsSlots)) {
      decision.lease = call.lease;
      return { decision, charged, lease: call.lease };
    }
    return { decision, charged };
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
      delayMs: delayInMs(outcome.delay),
      reason: outcome.reason,
    };
    if (outcome.blockedUntil > 0) {
      decision.blocked = { untilMs: ceilDiv(outcome.blockedUntil, 1000), offence: outcome.offence };
      if (outcome.blockStarted) decision.blocked.started = true;
    }
    if (override !== undefined) decision.override = override;
    if (spec.tier !== undefined) decision.tier = spec.tier;
    return decision;
  }
}

/** What `lease` must look like: as `consume` makes them. */
const LEASE = /^[a-z0-9]{1,16}\.[a-z0-9]{1,16}$/;

/** A concurrency policy holds a slot while its request runs. */
const holdsSlots = (each: { algorithm: string }): boolean => each.algorithm === 'concurrency';

/**
 * The tier a policy decides a request at: the one an operator's override assigns, else the
 * request's, when the policy names it; undefined: the policy's own rate.
 */
function tierOf(
  policy: Policy,
  override: AppliedOverride | undefined,
  requested: string | undefined,
): string | undefined {
  const tiers = policy.tiers;
  if (tiers === null) return undefined;
  const name = override?.tier ?? requested;
  return name !== undefined && Object.hasOwn(tiers, name) ? name : undefined;
}

/** The limit of `tier` when one applies, else the policy's own. */
function rateLimit(policy: Policy, tier: string | undefined): number {
  return tier === undefined ? policy.limit : (policy.tiers?.[tier]?.limit ?? policy.limit);
}
