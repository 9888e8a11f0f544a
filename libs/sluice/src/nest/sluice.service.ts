import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import type { Decision } from '../engine/decision.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import type {
  Charged,
  ConsumeOptions,
  KeyOptions,
  Quota,
  QuotaOptions,
} from '../engine/engine.types.js';
import type { PolicySelection } from '../engine/call.target.js';
import type { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import type { AccessLists } from '../lists/access-lists.js';
import { SLUICE_CLOCK, SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { reportUsage } from '../request/usage.settlement.js';
import { isChargeLater } from '../request/request.decider.js';
import { IdentifierPlans } from './identifier.plans.js';
import { CallDecider } from './call.decider.js';
import { ManualBlocks } from './manual.blocks.js';
import type {
  GrantAudit,
  GrantOptions,
  GrantRecord,
  IdentifierTier,
  LiftOptions,
  ManualBlockOptions,
} from './sluice-service.types.js';

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

/** The decider `service` charges by, for a guard subclass built without the CallDecider provider. */
export function deciderOf(service: SluiceService): CallDecider {
  return service['decider'];
}

const chargedAsIs = (charged: Charged): Charged => charged;

function rejected(error: unknown): Promise<Charged> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the decider failed with, passed on as it is
  return Promise.reject(error);
}

/**
 * Sluice for application code: the engine's operations, with the instance's cache of blocks in
 * front, so a blocked identifier is refused without a store call.
 */
@Injectable()
export class SluiceService {
  // Its collaborators are injected as properties, so the class has no constructor to call:
  // SluiceModule builds it, application code injects it (docs/architecture.md, "The public
  // surface"). The policies in force are the PolicyRegistry provider.
  @Inject(SluiceEngine) private readonly engine!: SluiceEngine;
  @Inject(CallDecider) private readonly decider!: CallDecider;
  @Inject(ManualBlocks) private readonly manual!: ManualBlocks;
  @Inject(SLUICE_CLOCK) private readonly clock!: Clock;
  @Optional() @Inject(SLUICE_OPTIONS) private readonly options?: SluiceModuleOptions;
  private ownPlans?: IdentifierPlans;
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
    const result = this.decider.charge(this.engine.target(policies, identifier, options), options);
    return isChargeLater(result) ? result.whenCharged(chargedAsIs, rejected) : result;
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
    const keyKind = options.keyKind ?? policies[0]?.key ?? 'user';
    return this.decider.refuseFromCache(policies, identifier, keyKind);
  }

  /**
   * The refusal of a deny list entry under `policies` (resolved, enforced ones), counted like
   * any decision and the entry's match with it; undefined when no entry denies, nothing counted.
   */
  refuseFromLists(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
  ): Decision | undefined {
    const keyKind = options.keyKind ?? policies[0]?.key ?? 'user';
    return this.decider.refuseFromLists(policies, identifier, keyKind, options.client);
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
    const target = this.engine.target(policies, identifier, options);
    return this.decider.refund(target, options, target.policies);
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
    const { actor = 'app', note = null, context, key, ...quota } = options;
    const resolved = await this.quotaOptions(policy, identifier, quota);
    const audit = this.grantAudit;
    if (audit === undefined) return this.engine.grant(policy, identifier, amount, resolved);
    // Made under a mark of its own, the grant is taken back exactly, even if it lands after.
    const once = randomUUID().replaceAll('-', '');
    const apply = () => this.engine.grant(policy, identifier, amount, { ...resolved, once });
    const current = () => this.engine.quota(policy, identifier, resolved);
    const revert = () => this.engine.undoGrant(policy, identifier, amount, once, resolved);
    const record: GrantRecord = { policy, identifier, amount, actor, note, current, revert };
    if (context !== undefined) record.context = context;
    if (key !== undefined) record.key = key;
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
  block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: ManualBlockOptions = {},
  ): Promise<{ untilMs: number }> {
    return this.manual.block(policy, identifier, durationMs, options);
  }

  /**
   * Lifts a block, and has every instance forget its cached copy; a `block.lifted` event when
   * there was one. Resolves false when the identifier was not blocked.
   */
  unblock(policy: string, identifier: string, options: LiftOptions = {}): Promise<boolean> {
    return this.manual.unblock(policy, identifier, options);
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

  /**
   * An identifier's tier and renewal day as `tiers.ofIdentifier` gives them, waiting up to 1 s (no
   * request waits on it), or why it gave none: what the admin's Identifiers screen reads. `asked`
   * is false when the module has no `tiers.ofIdentifier`.
   */
  tierOf(identifier: string, keyKind: string): Promise<IdentifierTier> {
    return this.plans().tierOf(identifier, keyKind);
  }

  private quotaOptions<T extends QuotaOptions>(
    policy: string,
    identifier: string,
    options: T,
  ): Promise<T> {
    return this.plans().fill(this.engine.policies.get(policy), identifier, options);
  }

  private plans(): IdentifierPlans {
    return (this.ownPlans ??= new IdentifierPlans(this.options?.tiers, this.clock));
  }
}
