import { ceilDiv } from '../algorithms/integer-math.js';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import type { AccessLists } from '../lists/access-lists.js';
import type { Policy } from '../policy/policy.types.js';
import type {
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import {
  delayInMs,
  listedDecision,
  settledDecision,
  summarize,
  type AppliedOverride,
  type PolicyDecision,
} from './decision.js';
import type { PolicyPricing, Priced } from './policy.pricing.js';
import type { Charged, ConsumeOptions } from './engine.types.js';

const NOTHING_CHARGED: readonly Policy[] = [];

/** Counted in the store: a policy no list entry or override settled. */
interface Counted {
  policy: Policy;
  override: AppliedOverride | undefined;
}

/**
 * Decides a call target: lists, then overrides, then one store call for every policy left and
 * their candidates (docs/algorithms.md, "One script, all or nothing").
 */
export class ConsumeOperation {
  /** Leases are `<this engine's tag>.<a count>`: unique across instances sharing a Redis. */
  private readonly leaseTag = Math.random().toString(36).slice(2, 10);
  private leases = 0;

  constructor(
    private readonly store: SluiceStore,
    private readonly pricing: PolicyPricing,
    private readonly lists: AccessLists,
  ) {}

  /** The decision on `target`, charged when `op` is consume. A bad input rejects, never throws. */
  decide(op: 'consume' | 'peek', target: CallTarget, options: ConsumeOptions): Promise<Charged> {
    try {
      const started = this.start(op, target, options);
      return started instanceof PendingCharge
        ? Promise.resolve(started.reply).then((result) => started.finish(result))
        : Promise.resolve(started);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, passed on as it is
      return Promise.reject(error);
    }
  }

  /**
   * The decision settled at once (lists, overrides, policies that are off), or its store call sent
   * and what finishes it once the store answers. Not async: a caller that awaits the reply itself
   * (CallDecider) spends no promise of its own on the decision. Throws on bad input.
   */
  start(
    op: 'consume' | 'peek',
    target: CallTarget,
    options: ConsumeOptions,
  ): Charged | PendingCharge {
    const nowMs = this.pricing.nowMs();
    const settled: PolicyDecision[] = [];
    const counted: Counted[] = [];
    // The lists come before the policies' own overrides: a deny entry refuses whatever an
    // override grants (docs/guide.md, allow and deny lists). A peek counts no match.
    const client = options.client;
    const listed =
      this.lists.size === 0
        ? undefined
        : this.lists.decide(
            target.policies,
            {
              keyKind: target.keyKind,
              identifier: target.identifier,
              address: client?.address,
              userAgent: client?.userAgent,
              request: client,
            },
            nowMs,
            op === 'consume',
          );
    for (const policy of target.policies) {
      const entry = listed?.get(policy);
      if (entry !== undefined && policy.mode !== 'off') {
        settled.push(listedDecision(policy, entry, nowMs));
        continue;
      }
      const override = this.pricing.override(policy, target);
      if (policy.mode === 'off' || override?.unlimited) {
        settled.push(settledDecision(policy, 'ok', override, nowMs));
      } else if (override?.limit === 0) {
        const reason = policy.mode === 'shadow' ? 'shadow' : 'denylist';
        settled.push(settledDecision(policy, reason, override, nowMs));
      } else {
        counted.push({ policy, override });
      }
    }
    const denied = settled.some((decision) => decision.reason === 'denylist');
    if (counted.length === 0 || denied) {
      return { decision: summarize(settled, !denied), charged: NOTHING_CHARGED };
    }
    return this.count(op, target, options, counted, settled);
  }

  /** The store call for the counted policies and their candidates, sent, or already decided. */
  private count(
    op: 'consume' | 'peek',
    target: CallTarget,
    options: ConsumeOptions,
    counted: Counted[],
    settled: PolicyDecision[],
  ): Charged | PendingCharge {
    const specs: PolicySpec[] = [];
    let candidates = false;
    for (const { policy, override } of counted) {
      specs.push(this.pricing.spec(policy, override, options));
      if (policy.candidate) candidates = true;
    }
    const proposed = candidates
      ? this.pricing.proposals(
          target,
          options,
          counted.map((each) => each.policy),
        )
      : NO_PROPOSALS;
    // A policy's candidate rides in the same call: no extra round trip.
    const sent = proposed.length === 0 ? specs : [...specs, ...proposed.map((each) => each.spec)];
    const call: StoreCall = { op, key: target.key, specs: sent };
    // A lease only for calls that take a slot: the usual request builds no string for it.
    if (sent.some(holdsSlots)) call.lease = `${this.leaseTag}.${(this.leases++).toString(36)}`;
    // A store that can answer at once (eventual mode's local decision) is asked so: the request
    // then waits on no promise at all.
    const reply = this.store.start?.(call) ?? this.store.run(call);
    const pending = new PendingCharge(reply, op, counted, specs, settled, proposed, call.lease);
    return isPending(reply) ? pending : pending.finish(reply);
  }
}

const NO_PROPOSALS: readonly Priced[] = [];

/** A store's answer still to come: any thenable (a store of the app's may use its own promises). */
function isPending(
  reply: StoreResult | PromiseLike<StoreResult>,
): reply is PromiseLike<StoreResult> {
  return typeof (reply as Partial<PromiseLike<StoreResult>>).then === 'function';
}

/**
 * A consume or peek whose store call is out: its reply, and what turns the store's result into
 * the decision and what it charged (docs/algorithms.md, "One script, all or nothing").
 */
export class PendingCharge {
  constructor(
    /**
     * The store call's result, a promise that rejects when the store fails; the result itself
     * only where the store answered at once, and then start() has already finished it.
     */
    readonly reply: StoreResult | PromiseLike<StoreResult>,
    private readonly op: 'consume' | 'peek',
    private readonly counted: readonly Counted[],
    private readonly specs: readonly PolicySpec[],
    private readonly settled: readonly PolicyDecision[],
    private readonly proposed: readonly Priced[],
    private readonly lease: string | undefined,
  ) {}

  finish(result: StoreResult): Charged {
    const { counted, specs, settled, proposed } = this;
    const decided: PolicyDecision[] = [];
    for (let index = 0; index < counted.length; index++) {
      const { policy, override } = counted[index] as Counted;
      const outcome = result.outcomes[index] as PolicyOutcome;
      decided.push(toDecision(policy, specs[index] as PolicySpec, outcome, override));
    }
    const decision = summarize(
      settled.length === 0 ? decided : [...decided, ...settled],
      result.admitted,
    );
    if (proposed.length > 0) {
      decision.candidates = proposed.map(({ policy, spec, override }, index) =>
        toDecision(policy, spec, result.outcomes[specs.length + index] as PolicyOutcome, override),
      );
    }
    // All or nothing: an admitted call charged each counted policy that admitted it (a shadow
    // policy that would have refused was not charged); a refused one charged none.
    if (this.op !== 'consume' || !result.admitted) return { decision, charged: NOTHING_CHARGED };
    const charged: Policy[] = [];
    for (let index = 0; index < counted.length; index++) {
      if ((decided[index] as PolicyDecision).reason === 'ok') {
        charged.push((counted[index] as Counted).policy);
      }
    }
    const lease = this.lease;
    if (lease !== undefined && charged.some(holdsSlots)) {
      decision.lease = lease;
      return { decision, charged, lease };
    }
    return { decision, charged };
  }
}

/** A policy whose algorithm holds a slot while its request runs. */
export const holdsSlots = (each: { algorithm: Policy['algorithm'] }): boolean =>
  traitsOf(each.algorithm).holdsSlots;

function toDecision(
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
  if (outcome.granted !== undefined && outcome.granted !== 0) decision.granted = outcome.granted;
  if (outcome.blockedUntil > 0) {
    decision.blocked = { untilMs: ceilDiv(outcome.blockedUntil, 1000), offence: outcome.offence };
    if (outcome.blockStarted) decision.blocked.started = true;
  }
  if (override !== undefined) decision.override = override;
  if (spec.tier !== undefined) decision.tier = spec.tier;
  return decision;
}
