import { systemClock } from '../clock/clock.js';
import { assertPrefix } from '../keys/key.builder.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import { AccessLists } from '../lists/access-lists.js';
import { actionPolicy } from './action.policy.js';
import { BlockOperations } from './block.operations.js';
import { callTarget, type CallTarget, type PolicySelection } from './call.target.js';
import { ConsumeOperation } from './consume.operation.js';
import type { Decision } from './decision.js';
import type {
  Charged,
  ConsumeOptions,
  KeyOptions,
  Quota,
  QuotaOptions,
  SluiceEngineOptions,
} from './engine.types.js';
import { register, type EngineOperations } from './engine.operations.js';
import { LeaseOperations } from './lease.operations.js';
import { PolicyPricing } from './policy.pricing.js';
import { QuotaOperations } from './quota.operations.js';

/**
 * The framework-free API: policies by name (or resolved from `policies`), decided by one store
 * call per request. Each operation resolves its call target once and hands it to the part of the
 * engine whose job it is (docs/architecture.md, "The engine").
 */
export class SluiceEngine {
  /** The policies in force: set, replace and delete them here. */
  readonly policies = new PolicyRegistry();
  /** The allow and deny lists in force, as the last snapshot published them. */
  readonly lists = new AccessLists();
  private readonly prefix: string;
  private readonly ops: EngineOperations;

  constructor(options: SluiceEngineOptions) {
    const { store } = options;
    this.prefix = options.prefix ?? 'sluice';
    const clock = options.clock ?? systemClock;
    assertPrefix(this.prefix);
    for (const policy of options.policies ?? []) this.policies.set(policy);
    const pricing = new PolicyPricing(clock);
    this.ops = register(this, {
      consume: new ConsumeOperation(store, pricing, this.lists),
      leases: new LeaseOperations(store, pricing),
      quotas: new QuotaOperations(store, pricing, clock),
      blocks: new BlockOperations(store, pricing),
    });
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
  async charge(target: CallTarget, options: ConsumeOptions = {}): Promise<Charged> {
    return this.ops.consume.decide('consume', target, options);
  }

  /** What consume would decide, without charging anything; `options.key` as for reset. */
  async peek(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<Decision> {
    const target = this.target(policies, identifier, options);
    return (await this.ops.consume.decide('peek', target, options)).decision;
  }

  /** Gives back what an admitted request was charged (count: 'failures' after a success). */
  async refund(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions = {},
  ): Promise<void> {
    return this.ops.leases.refund(this.target(policies, identifier, options), options);
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
    return this.ops.leases.release(this.target(policies, identifier, options), lease, options);
  }

  /**
   * Adds credits to an identifier's quota for the period now running (negative: debits them),
   * and says what the quota holds after (docs/guide.md, "Credits"). They end with the period.
   */
  async grant(
    policy: string,
    identifier: string,
    amount: number,
    options: QuotaOptions & { once?: string } = {},
  ): Promise<Quota> {
    const { once, ...quota } = options;
    const marked = once === undefined ? {} : { once };
    return this.ops.quotas.grant(this.target(policy, identifier, quota), amount, quota, marked);
  }

  /**
   * Takes back the grant of `amount` made with `once`, or keeps it from being made if it
   * arrives later: what the admin does when a grant's audit entry did not commit, or its answer
   * never came. Exact whether or not the grant was made.
   */
  async undoGrant(
    policy: string,
    identifier: string,
    amount: number,
    once: string,
    options: QuotaOptions = {},
  ): Promise<Quota> {
    const target = this.target(policy, identifier, options);
    return this.ops.quotas.grant(target, amount, options, { once, undo: true });
  }

  /** What an identifier's quota holds in the period now running: used, remaining, credits. */
  async quota(policy: string, identifier: string, options: QuotaOptions = {}): Promise<Quota> {
    return this.ops.quotas.read(this.target(policy, identifier, options), options);
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
    const target = this.target(policy, identifier, options);
    return this.ops.quotas.settle(target, target.policies[0] as Policy, units, options);
  }

  /** Forgets an identifier's counters; blocks and offences stay. */
  async reset(
    policies: PolicySelection,
    identifier: string,
    options: ConsumeOptions & Pick<KeyOptions, 'key'> = {},
  ): Promise<void> {
    return this.ops.blocks.reset(this.target(policies, identifier, options));
  }

  /** Blocks an identifier under a policy for durationMs, whatever its counters say. */
  async block(
    policy: string,
    identifier: string,
    durationMs: number,
    options: KeyOptions = {},
  ): Promise<{ untilMs: number }> {
    return this.ops.blocks.block(this.target(policy, identifier, options), durationMs);
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
    return this.ops.blocks.forget(this.target(policy, identifier, options));
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
    return this.ops.blocks.lift(this.target(policy, identifier, options));
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
}
