import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import type { CallTarget } from '../engine/call.target.js';
import {
  listedDecision,
  refusalWithoutStore,
  summarize,
  type Decision,
  type PolicyDecision,
} from '../engine/decision.js';
import { operationsOf, type EngineOperations } from '../engine/engine.operations.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { PendingCharge } from '../engine/consume.operation.js';
import type { Charged, ConsumeOptions } from '../engine/engine.types.js';
import type { StoreResult } from '../store/store.types.js';
import { InvalidIdentifierError, storedForm } from '../keys/identifier.js';
import { UnknownPolicyError } from '../policy/policy.registry.js';
import { PolicyValidationError } from '../policy/policy-validation.error.js';
import type { Policy } from '../policy/policy.types.js';
import { PolicyBus } from '../bus/policy.bus.js';
import { PenaltyEventPublisher } from '../events/penalty-event.publisher.js';
import { SluiceMetrics } from '../metrics/sluice.metrics.js';
import { SluiceTelemetry } from '../metrics/sluice.telemetry.js';
import { DecisionTally } from '../stats/decision.tally.js';
import { IdentifierTally } from '../stats/identifier.tally.js';
import { BlockCache } from '../penalty/block.cache.js';
import { SLUICE_CLOCK } from '../config/sluice.tokens.js';
import type { ChargeLater, RequestDecider } from '../request/request.decider.js';
import type { RequestTerms } from '../request/request.plan.js';
import { StoreOutageDecider } from './store-outage.decider.js';

const NOTHING_CHARGED: readonly Policy[] = [];

/**
 * Decides call targets for the guard and SluiceService: the instance's cache of blocks first, so
 * a blocked identifier is refused without a store call, then the engine's one store call, then the
 * outage rule when the store fails; each decision counted for the panel and metrics, and the
 * blocks it set off cached and announced (docs/architecture.md, "One request, hop by hop").
 */
@Injectable()
export class CallDecider implements RequestDecider {
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
  private ops?: EngineOperations;

  private get operations(): EngineOperations {
    return (this.ops ??= operationsOf(this.engine));
  }

  target(policies: readonly Policy[], identifier: string, keyKind: string): CallTarget {
    return this.engine.target(policies, identifier, { keyKind });
  }

  /**
   * Decides and charges the target, timed and counted: a cached block refuses it first, then the
   * engine's one store call, then the outage rule when the store fails. Answered at once when no
   * I/O is needed (a cached block, a list, eventual mode's local decision); otherwise a charge
   * still to come, whose step after runs from the store reply's own promise, so a request waits
   * on its store call and on no promise of the decider's (docs/architecture.md, "One request,
   * hop by hop").
   */
  charge(target: CallTarget, terms: ConsumeOptions): Charged | ChargeLater {
    const { policies, identifier, keyKind } = target;
    const cached =
      this.blocks.size > 0 ? this.cachedBlock(policies, target.stored, keyKind) : undefined;
    if (cached !== undefined) {
      this.record(cached, identifier, keyKind);
      return { decision: cached, charged: NOTHING_CHARGED };
    }
    const timed = this.metrics !== undefined || this.telemetry.counting;
    const started = timed ? performance.now() : 0;
    let begun: Charged | PendingCharge;
    try {
      begun = this.operations.consume.start('consume', target, terms);
    } catch (error) {
      return this.failedLater(error, target, terms, started);
    }
    if (begun instanceof PendingCharge) return this.later(begun, target, terms, started);
    return this.booked(begun, target, terms, started);
  }

  // later and failedLater are functions of their own: their closures' variables are allocated
  // only where a charge is still to come, not on the path that answers at once.

  /** The store call out: the step after runs from its reply's own promise. */
  private later(
    pending: PendingCharge,
    target: CallTarget,
    terms: ConsumeOptions,
    started: number,
  ): ChargeLater {
    return {
      whenCharged: (next, failed) =>
        Promise.resolve(pending.reply).then(
          (result) => this.finished(pending, result, target, terms, started, next, failed),
          (error: unknown) => this.failed(error, target, terms, started, next, failed),
        ),
    };
  }

  /** Starting the charge threw: decided as a failed store call is, when the step after asks. */
  private failedLater(
    error: unknown,
    target: CallTarget,
    terms: ConsumeOptions,
    started: number,
  ): ChargeLater {
    return {
      whenCharged: (next, failed) => this.failed(error, target, terms, started, next, failed),
    };
  }

  /** The store's reply made the decision, at once: booked and passed on. */
  private finished<R>(
    pending: PendingCharge,
    result: StoreResult,
    target: CallTarget,
    terms: ConsumeOptions,
    started: number,
    next: (charged: Charged) => R | Promise<R>,
    failed: (error: unknown) => R | Promise<R>,
  ): R | Promise<R> {
    let charged: Charged;
    try {
      charged = pending.finish(result);
    } catch (error) {
      return this.failed(error, target, terms, started, next, failed);
    }
    return next(this.booked(charged, target, terms, started));
  }

  /** A decision made: the blocks it set off cached and announced, and the decision counted. */
  private booked(
    charged: Charged,
    target: CallTarget,
    terms: ConsumeOptions,
    started: number,
  ): Charged {
    const { decision } = charged;
    const { identifier, keyKind } = target;
    if (!decision.allowed && decision.policies.some((part) => part.blocked !== undefined)) {
      if (this.blocks.capacity > 0) this.rememberBlocks(decision, target);
      this.penalties.blocksSeen(decision, target.policies, {
        ...this.eventContext(keyKind, identifier),
        route: terms.route,
      });
    }
    this.record(decision, identifier, keyKind, started);
    return charged;
  }

  /**
   * A bad input passed to `failed`; a failed store decided by the outage rule, counted and passed
   * to `next` (its own failure to `failed`).
   */
  private failed<R>(
    error: unknown,
    target: CallTarget,
    terms: ConsumeOptions,
    started: number,
    next: (charged: Charged) => R | Promise<R>,
    failed: (error: unknown) => R | Promise<R>,
  ): R | Promise<R> {
    if (isInputError(error)) return failed(error);
    const { policies, identifier, keyKind } = target;
    return this.outage
      .decide(policies, identifier, { ...terms, keyKind }, error)
      .then((decision) => {
        this.record(decision, identifier, keyKind, started);
        return next({ decision, charged: NOTHING_CHARGED });
      }, failed);
  }

  async refund(
    target: CallTarget,
    terms: RequestTerms,
    policies: readonly Policy[],
  ): Promise<void> {
    try {
      await this.operations.leases.refund(target, terms, policies);
    } catch (error) {
      // While the store fails, what a local decision charged is given back where it was charged.
      const options = { ...terms, keyKind: target.keyKind };
      if (
        isInputError(error) ||
        !(await this.outage.refund(policies, target.identifier, options))
      ) {
        throw error;
      }
    }
  }

  async release(target: CallTarget, terms: RequestTerms, lease: string): Promise<void> {
    return this.operations.leases.release(target, lease, terms);
  }

  async settle(
    target: CallTarget,
    terms: RequestTerms,
    policy: Policy,
    units: number,
  ): Promise<unknown> {
    return this.operations.quotas.settle(target, policy, units, terms);
  }

  /**
   * The refusal of a cached block under one of `policies` (resolved), counted like any decision;
   * undefined when none of them has the identifier's block cached, with nothing counted.
   */
  refuseFromCache(
    policies: readonly Policy[],
    identifier: string,
    keyKind: string,
  ): Decision | undefined {
    if (this.blocks.size === 0 || policies.length === 0) return undefined;
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
    keyKind: string,
    client: ConsumeOptions['client'],
  ): Decision | undefined {
    const lists = this.engine.lists;
    if (lists.size === 0 || policies.length === 0) return undefined;
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
    lists.count(matched, client);
    const decision = summarize(parts, false);
    this.record(decision, identifier, keyKind);
    return decision;
  }

  /** Who acted on which identifier, for penalty events. */
  eventContext(keyKind: string, identifier: string) {
    return {
      keyKind,
      identifier,
      instanceId: this.bus.instanceId,
      policyVersion: this.bus.version,
    };
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
