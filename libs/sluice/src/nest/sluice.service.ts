import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import {
  listedDecision,
  refusalWithoutStore,
  summarize,
  type Decision,
  type PolicyDecision,
} from '../engine/decision.js';
import {
  SluiceEngine,
  type Charged,
  type ConsumeOptions,
  type KeyOptions,
  type Quota,
  type QuotaOptions,
} from '../engine/sluice.engine.js';
import type { CallTarget, PolicySelection } from '../engine/call.target.js';
import { InvalidIdentifierError, storedForm } from '../keys/identifier.js';
import { UnknownPolicyError, type PolicyRegistry } from '../policy/policy.registry.js';
import { PolicyValidationError } from '../policy/policy-validation.error.js';
import type { Policy } from '../policy/policy.types.js';
import type { AccessLists } from '../lists/access-lists.js';
import { PolicyBus } from '../bus/policy.bus.js';
import { PenaltyEventPublisher } from '../events/penalty-event.publisher.js';
import { SluiceMetrics } from '../metrics/sluice.metrics.js';
import { SluiceTelemetry } from '../metrics/sluice.telemetry.js';
import { DecisionTally } from '../stats/decision.tally.js';
import { IdentifierTally } from '../stats/identifier.tally.js';
import { BlockCache } from '../penalty/block.cache.js';
import { SLUICE_CLOCK, SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { TierResolver } from '../trackers/tier.resolver.js';
import { StoreOutageDecider } from './store-outage.decider.js';
import { reportUsage } from './usage.settlement.js';

/** Who blocks or lifts by hand, and why: recorded with the penalty event. */
export interface ManualBlockOptions {
  /** The kind of identifier; default the policy's `key`. */
  keyKind?: string;
  /** Who acted, as the audit records it. */
  actor?: string;
  /** Why, as the audit records it. */
  reason?: string;
}

/** Lifting a block: as a manual block, or by the stored key its penalty events give. */
export interface LiftOptions extends ManualBlockOptions {
  /**
   * The stored key (`PenaltyEvent.key`) of an identifier over 256 characters, which events show
   * cut: it names the block, and `identifier` (the cut form) labels the events.
   */
  key?: string;
}

const NOTHING_CHARGED: readonly Policy[] = [];

/** A grant as the audit records it: who credited whom, by how much, and why. */
export interface GrantRecord {
  /** The quota's policy. */
  policy: string;
  /** Whose quota, as given. */
  identifier: string;
  /** Credits added; negative: taken away. */
  amount: number;
  /** Who granted; 'app' for application code that names no one. */
  actor: string;
  /** Why, or null. */
  note: string | null;
  /** What the caller gave the audit beyond the name (the admin: its request's actor). */
  context?: object;
  /** Reads the quota as it is before the grant: the audit entry is written from it. */
  current: () => Promise<Quota>;
}

/**
 * Where grants are recorded: the admin registers one (`SluiceService.recordGrantsWith`), which
 * writes the audit entry around `apply`, so a grant that fails is not recorded.
 */
export interface GrantAudit {
  /**
   * Writes the entry for `grant`, then `apply`s it, keeping the entry only when it succeeds;
   * answers what `apply` did.
   */
  record(grant: GrantRecord, apply: () => Promise<Quota>): Promise<Quota>;
}

/** Who grants and why, for the audit. */
export interface GrantOptions extends QuotaOptions {
  /** Who granted, as the audit records it. Default 'app'. */
  actor?: string;
  /** Why, as the audit records it. */
  note?: string | null;
  /** Handed to the audit as it is: the admin passes who made the request, address included. */
  context?: object;
}

/**
 * The policies `service` decides by, for a guard subclass built without the PolicyRegistry
 * provider (the nest folder's own accessor; not exported further).
 */
export function policiesOf(service: SluiceService): PolicyRegistry {
  return service['engine'].policies;
}

/** The lists `service` decides by, for a guard subclass built without the AccessLists provider. */
export function listsOf(service: SluiceService): AccessLists {
  return service['engine'].lists;
}

/**
 * Sluice for application code: the engine's operations, with the instance's cache of blocks in
 * front, so a blocked identifier is refused without a store call.
 */
@Injectable()
export class SluiceService {
  private readonly logger = new Logger('Sluice');

  // Its collaborators are injected as properties, so the class has no constructor to call:
  // SluiceModule builds it, application code injects it (docs/architecture.md, "The public
  // surface"). The policies in force are the PolicyRegistry provider.
  @Inject(SluiceEngine) private readonly engine!: SluiceEngine;
  @Inject(BlockCache) private readonly blocks!: BlockCache;
  @Inject(SLUICE_CLOCK) private readonly clock!: Clock;
  @Inject(StoreOutageDecider) private readonly outage!: StoreOutageDecider;
  @Inject(PolicyBus) private readonly bus!: PolicyBus;
  @Inject(PenaltyEventPublisher) private readonly penalties!: PenaltyEventPublisher;
  @Inject(IdentifierTally) private readonly tally!: IdentifierTally;
  @Inject(DecisionTally) private readonly decisions!: DecisionTally;
  @Optional() @Inject(SluiceMetrics) private readonly metrics?: SluiceMetrics;
  @Inject(SluiceTelemetry) private readonly telemetry!: SluiceTelemetry;
  @Optional() @Inject(SLUICE_OPTIONS) private readonly options?: SluiceModuleOptions;
  private ownTiers?: TierResolver;
  private grantAudit?: GrantAudit;

  /**
   * Decides and charges: by names, or by policies resolved from `engine.policies` (the guard
   * passes those, so a request's names are looked up once).
   */
  async consume(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<Decision> {
    return (await this.charge(policies, identifier, options)).decision;
  }

  /**
   * consume, saying which policies its store call charged: what a refund gives back when another
   * identifier refuses the request, or a `count: 'failures'` policy's request succeeds. The guard's
   * path: the target is resolved once, here, and everything below works on it.
   */
  async charge(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<Charged> {
    const started = this.metrics === undefined && !this.telemetry.active ? 0 : performance.now();
    const target = this.engine.target(policies, identifier, options);
    const charged = await this.decide(target, options);
    const cached = charged.decision.reason === 'cache-block';
    this.record(charged.decision, identifier, target.keyKind, cached ? undefined : started);
    return charged;
  }

  /**
   * The refusal of a cached block under one of `policies` (resolved), counted like any decision;
   * undefined when none of them has the identifier's block cached, with nothing counted.
   */
  refuseFromCache(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
  ): Decision | undefined {
    if (this.blocks.size === 0 || policies.length === 0) return undefined;
    const keyKind = options.keyKind ?? (policies[0] as Policy).key;
    const refusal = this.cachedBlock(policies, storedForm(identifier), keyKind);
    if (refusal !== undefined) this.record(refusal, identifier, keyKind);
    return refusal;
  }

  /**
   * The refusal of a deny list entry under `policies` (resolved, enforced ones), counted like
   * any decision and the entry's match with it; undefined when no entry denies, nothing counted.
   * What the block gate answers before Nest's pipeline, as the engine would have.
   */
  refuseFromLists(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
  ): Decision | undefined {
    const lists = this.engine.lists;
    if (lists.size === 0 || policies.length === 0) return undefined;
    const keyKind = options.keyKind ?? (policies[0] as Policy).key;
    const client = options.client;
    const subject = {
      keyKind,
      identifier,
      address: client?.address,
      userAgent: client?.userAgent,
    };
    const nowMs = Math.floor(this.clock() / 1000);
    // Counted only when refused here: otherwise the guard's call counts the request's matches.
    const found = lists.match(policies, subject, nowMs);
    if (found?.verdicts === undefined) return undefined;
    const { verdicts, matched } = found;
    let parts: PolicyDecision[] | undefined;
    for (const policy of policies) {
      const entry = verdicts.get(policy);
      if (policy.mode !== 'enforce' || entry?.list !== 'deny') continue;
      (parts ??= []).push(listedDecision(policy, entry, nowMs));
    }
    if (parts === undefined) return undefined;
    lists.count(matched, options.client);
    const decision = summarize(parts, false);
    this.record(decision, identifier, keyKind);
    return decision;
  }

  /**
   * What consume would decide, charging nothing; `options.key` as for reset. For one policy
   * without a tier given, the module's `tiers.ofIdentifier` says the identifier's, as for quota.
   */
  async peek(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<Decision> {
    const one = typeof policies === 'string' ? policies : undefined;
    const resolved =
      one === undefined ? options : await this.quotaOptions(one, identifier, options);
    return this.engine.peek(policies, identifier, resolved);
  }

  /** Gives back what consume charged, e.g. for a request that turned out not to count. */
  refund(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<void> {
    return this.engine.refund(policies, identifier, options);
  }

  /**
   * Ends a request's concurrency lease (`Decision.lease`), freeing its slots; the guard does it
   * when the response is done. Releasing twice does nothing more.
   */
  release(
    policies: PolicySelection,
    identifier: string,
    lease: string,
    options: Pick<ConsumeOptions, 'keyKind' | 'cost' | 'tier'> = {},
  ): Promise<void> {
    return this.engine.release(policies, identifier, lease, options);
  }

  /**
   * Adds credits to an identifier's quota for the period now running (negative: debits), and
   * says what it holds after. The tier (and a month's renewal day) is `options`', else the
   * module's `tiers.ofIdentifier`'s, else an override's; docs/guide.md, "Credits".
   */
  async grant(
    policy: string,
    identifier: string,
    amount: number,
    options: GrantOptions = {},
  ): Promise<Quota> {
    const { actor = 'app', note = null, context, ...quota } = options;
    const resolved = await this.quotaOptions(policy, identifier, quota);
    const apply = () => this.engine.grant(policy, identifier, amount, resolved);
    const audit = this.grantAudit;
    if (audit === undefined) return apply();
    const current = () => this.engine.quota(policy, identifier, resolved);
    const record: GrantRecord = { policy, identifier, amount, actor, note, current };
    if (context !== undefined) record.context = context;
    return audit.record(record, apply);
  }

  /**
   * Has every grant recorded by `audit` (the admin's, when it runs in this app); without one,
   * grants are made unrecorded.
   */
  recordGrantsWith(audit: GrantAudit): void {
    this.grantAudit = audit;
  }

  /**
   * Charges `units` more to a fixed-window policy for a request already admitted (negative: gives
   * them back), past its limit if need be. The guard does it for `usage` policies.
   */
  settle(
    policy: string,
    identifier: string,
    units: number,
    options: QuotaOptions = {},
  ): Promise<Quota> {
    return this.engine.settle(policy, identifier, units, options);
  }

  /**
   * What the handler's request used, for its policies with `usage`: charged in place of the
   * reservation once the response is sent (the last report counts; it wins over the header).
   * `request` is the request object the handler received.
   */
  reportUsage(request: object, units: number): void {
    reportUsage(request, units);
  }

  /** What an identifier's quota holds in the period now running; the tier as for grant. */
  async quota(policy: string, identifier: string, options: QuotaOptions = {}): Promise<Quota> {
    return this.engine.quota(
      policy,
      identifier,
      await this.quotaOptions(policy, identifier, options),
    );
  }

  /** Forgets an identifier's counters; `options.key` names one too long to name whole. */
  reset(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<void> {
    return this.engine.reset(policies, identifier, options);
  }

  /** Blocks by hand for durationMs, replacing any current block's end; a `block.manual` event. */
  async block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: ManualBlockOptions = {},
  ): Promise<{ untilMs: number }> {
    const result = await this.engine.block(policy, identifier, durationMs, options);
    const context = this.context(options.keyKind ?? this.keyOf(policy), identifier);
    const { untilMs } = result;
    this.blocks.remember(policy, context.keyKind, storedForm(identifier), {
      untilMs,
      retryAtMs: untilMs,
      offence: 0,
    });
    this.penalties.manualBlock(
      policy,
      context,
      { untilMs, durationMs },
      options.actor ?? null,
      options.reason ?? null,
    );
    return result;
  }

  /**
   * Lifts a block, and has every instance forget its cached copy; a `block.lifted` event when
   * there was one. Resolves false when the identifier was not blocked.
   */
  async unblock(policy: string, identifier: string, options: LiftOptions = {}): Promise<boolean> {
    const { key } = options;
    const context = {
      ...this.context(options.keyKind ?? this.keyOf(policy), identifier),
      ...(key === undefined ? {} : { key }),
    };
    const lifted = await this.engine.lift(policy, identifier, options);
    const target = {
      policy,
      keyKind: context.keyKind,
      identifier,
      ...(key === undefined ? {} : { key }),
    };
    await this.bus.announceUnblock(target).catch((error: unknown) => {
      this.logger.warn(`Other instances may keep the lifted block cached: ${String(error)}`);
    });
    if (lifted === null) return false;
    const { actor = null, reason = null } = options;
    this.penalties.lifted(policy, context, lifted.untilMs, actor, reason);
    return true;
  }

  /**
   * Forgets an identifier's offences under a policy, so its next block is a first offence: any
   * block in force is lifted first, as `unblock` lifts it. Resolves true when one was lifted.
   */
  async forgetOffences(
    policy: string,
    identifier: string,
    options: LiftOptions = {},
  ): Promise<boolean> {
    const lifted = await this.unblock(policy, identifier, options);
    await this.engine.forgetOffences(policy, identifier, options);
    return lifted;
  }

  /**
   * "May this user do this action again?": at most maxCount times in any periodSec seconds,
   * counted in a sliding log.
   */
  isActionAllowed(
    userId: string,
    actionKey: string,
    periodSec: number,
    maxCount: number,
  ): Promise<boolean> {
    return this.engine.isActionAllowed(userId, actionKey, periodSec, maxCount);
  }

  /** The target resolved: nothing below looks a name up again. */
  private async decide(target: CallTarget, options: ConsumeOptions): Promise<Charged> {
    const { policies, identifier, keyKind } = target;
    const cached =
      this.blocks.size > 0 ? this.cachedBlock(policies, target.stored, keyKind) : undefined;
    if (cached !== undefined) return { decision: cached, charged: NOTHING_CHARGED };
    let charged: Charged;
    try {
      charged = await this.engine.charge(target, options);
    } catch (error) {
      if (isInputError(error)) throw error;
      const decision = await this.outage.decide(
        policies,
        identifier,
        { ...options, keyKind },
        error,
      );
      return { decision, charged: NOTHING_CHARGED };
    }
    const { decision } = charged;
    if (!decision.allowed && decision.policies.some((part) => part.blocked !== undefined)) {
      if (this.blocks.capacity > 0) this.rememberBlocks(decision, target);
      this.penalties.blocksSeen(decision, policies, {
        ...this.context(keyKind, identifier),
        route: options.route,
      });
    }
    return charged;
  }

  /**
   * Counts a decision for the panel and metrics; `started` times a store call when one was made.
   * keyKind is the one every policy of the decision counted under.
   */
  private record(decision: Decision, identifier: string, keyKind: string, started?: number): void {
    if (this.metrics !== undefined || this.telemetry.active) {
      const seconds = started === undefined ? undefined : (performance.now() - started) / 1000;
      this.metrics?.decided(decision, seconds);
      if (this.telemetry.active) this.telemetry.decided(decision, seconds);
    }
    this.tally.count(decision, keyKind, identifier);
    this.decisions.count(decision);
  }

  private async quotaOptions<T extends QuotaOptions>(
    policy: string,
    identifier: string,
    options: T,
  ): Promise<T> {
    const given = options.tier !== undefined && options.anchorDay !== undefined;
    if (given || this.options?.tiers?.ofIdentifier === undefined) return options;
    this.ownTiers ??= new TierResolver(this.options.tiers, this.clock);
    const plan = await this.ownTiers.ofIdentifier(
      identifier,
      options.keyKind ?? this.keyOf(policy),
    );
    const resolved: T = { ...options };
    resolved.tier ??= plan.tier;
    resolved.anchorDay ??= plan.anchorDay;
    if (resolved.tier === undefined) delete resolved.tier;
    if (resolved.anchorDay === undefined) delete resolved.anchorDay;
    return resolved;
  }

  /** A manual operation's key kind when none is given: the policy's own (the engine refuses an unknown one). */
  private keyOf(policy: string): string {
    return this.engine.policies.get(policy)?.key ?? 'user';
  }

  private context(keyKind: string, identifier: string) {
    return {
      keyKind,
      identifier,
      instanceId: this.bus.instanceId,
      policyVersion: this.bus.version,
    };
  }

  /** `stored`: the identifier as Redis keys hold it (storedForm), which the cache files it under. */
  private cachedBlock(
    policies: readonly Policy[],
    stored: string,
    keyKind: string,
  ): Decision | undefined {
    const nowMs = Math.floor(this.clock() / 1000);
    for (const policy of policies) {
      if (policy.mode !== 'enforce') continue;
      const block = this.blocks.find(policy.name, keyKind, stored, nowMs);
      if (block === undefined) continue;
      const decision = refusalWithoutStore(policy, 'cache-block', block.retryAtMs - nowMs);
      decision.blocked = { untilMs: block.untilMs, offence: block.offence };
      return summarize([decision], false);
    }
    return undefined;
  }

  private rememberBlocks(decision: Decision, target: CallTarget): void {
    const nowMs = Math.floor(this.clock() / 1000);
    for (const part of decision.policies) {
      const policy = target.policies.find((each) => each.name === part.policy);
      if (policy?.mode === 'enforce' && part.blocked !== undefined) {
        this.blocks.remember(part.policy, target.keyKind, target.stored, {
          ...part.blocked,
          retryAtMs: nowMs + part.retryAfterMs,
        });
      }
    }
  }
}

function isInputError(error: unknown): boolean {
  return (
    error instanceof RangeError ||
    error instanceof UnknownPolicyError ||
    error instanceof InvalidIdentifierError ||
    error instanceof PolicyValidationError
  );
}
