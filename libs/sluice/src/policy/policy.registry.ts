import { parsePolicy } from './policy.schema.js';
import type { Policy } from './policy.types.js';

/** A call named policies that are not defined. */
export class UnknownPolicyError extends Error {
  constructor(
    /** The names not found. */
    readonly missing: string[],
  ) {
    super(`Unknown polic${missing.length === 1 ? 'y' : 'ies'}: ${missing.join(', ')}`);
    this.name = 'UnknownPolicyError';
  }
}

/** The policies an instance holds in memory; the hot path reads only this. */
export class PolicyRegistry {
  private policies = new Map<string, Policy>();
  private enforcement = true;
  /** Each route's names as resolved since the policies last changed (resolveRoute). */
  private routes = new WeakMap<readonly string[], readonly Policy[]>();

  /** False while the global switch suspends enforcement: guards let every request pass. */
  get enforcing(): boolean {
    return this.enforcement;
  }

  /** Validates and stores a policy, replacing one of the same name. */
  set(input: unknown): Policy {
    const policy = parsePolicy(input);
    this.policies.set(policy.name, policy);
    this.routes = new WeakMap();
    return policy;
  }

  /** Swaps in a whole validated set at once, so no request sees half of it. */
  replaceAll(policies: readonly Policy[], enforcing: boolean): void {
    this.policies = new Map(policies.map((policy) => [policy.name, policy]));
    this.enforcement = enforcing;
    this.routes = new WeakMap();
  }

  /** The policy of that name, if defined. */
  get(name: string): Policy | undefined {
    return this.policies.get(name);
  }

  /** Removes a policy; false when there was none of that name. */
  delete(name: string): boolean {
    this.routes = new WeakMap();
    return this.policies.delete(name);
  }

  /** Every policy, in the order they were set. */
  all(): Policy[] {
    return [...this.policies.values()];
  }

  /** The named policies, or UnknownPolicyError listing every name that is not defined. */
  resolve(names: readonly string[]): Policy[] {
    const found = names.map((name) => this.policies.get(name));
    const missing = names.filter((_, index) => found[index] === undefined);
    if (missing.length > 0) throw new UnknownPolicyError(missing);
    return found as Policy[];
  }

  /**
   * resolve for a route's names, the same array for every request (the marks' own): resolved once
   * until a policy is set, replaced or deleted, and frozen, since every request shares it.
   */
  resolveRoute(names: readonly string[]): readonly Policy[] {
    let found = this.routes.get(names);
    if (found === undefined) {
      found = Object.freeze(this.resolve(names));
      this.routes.set(names, found);
    }
    return found;
  }
}
