import { ceilDiv } from '../algorithms/integer-math.js';
import { traitsOf } from '../algorithms/algorithm.traits.js';
import type { AccessLists } from '../lists/access-lists.js';
import type { Policy } from '../policy/policy.types.js';
import type { PolicyOutcome, PolicySpec, SluiceStore, StoreCall } from '../store/store.types.js';
import type { CallTarget } from './call.target.js';
import {
  delayInMs,
  listedDecision,
  settledDecision,
  summarize,
  type AppliedOverride,
  type PolicyDecision,
} from './decision.js';
import type { PolicyPricing } from './policy.pricing.js';
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

  /**
   * Not async: the store call's promise is returned as it is, rather than resolved into another
   * one (two more turns of the microtask queue). A bad input still rejects, never throws.
   */
  decide(op: 'consume' | 'peek', target: CallTarget, options: ConsumeOptions): Promise<Charged> {
    try {
      return this.decideNow(op, target, options);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, passed on as it is
      return Promise.reject(error);
    }
  }

  private decideNow(
    op: 'consume' | 'peek',
    target: CallTarget,
    options: ConsumeOptions,
  ): Promise<Charged> {
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
      return Promise.resolve({ decision: summarize(settled, !denied), charged: NOTHING_CHARGED });
    }
    return this.count(op, target, options, counted, settled);
  }

  /** The store call for the counted policies and their candidates, and what it charged. */
  private async count(
    op: 'consume' | 'peek',
    target: CallTarget,
    options: ConsumeOptions,
    counted: Counted[],
    settled: PolicyDecision[],
  ): Promise<Charged> {
    const specs = counted.map(({ policy, override }) =>
      this.pricing.spec(policy, override, options),
    );
    const proposed = this.pricing.proposals(
      target,
      options,
      counted.map((each) => each.policy),
    );
    // A policy's candidate rides in the same call: no extra round trip.
    const sent = proposed.length === 0 ? specs : [...specs, ...proposed.map((each) => each.spec)];
    const call: StoreCall = { op, key: target.key, specs: sent };
    // A lease only for calls that take a slot: the usual request builds no string for it.
    if (sent.some(holdsSlots)) call.lease = `${this.leaseTag}.${(this.leases++).toString(36)}`;
    const result = await this.store.run(call);
    const decided = counted.map(({ policy, override }, index) =>
      toDecision(
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
        toDecision(policy, spec, result.outcomes[specs.length + index] as PolicyOutcome, override),
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
