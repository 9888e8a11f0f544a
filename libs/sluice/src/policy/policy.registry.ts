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

  /** False while the global switch suspends enforcement: guards let every request pass. */
  get enforcing(): boolean {
    return this.enforcement;
  }

  /** Validates and stores a policy, replacing one of the same name. */
  set(input: unknown): Policy {
    const policy = parsePolicy(input);
    this.policies.set(policy.name, policy);
    return policy;
  }

  /** Swaps in a whole validated set at once, so no request sees half of it. */
  replaceAll(policies: readonly Policy[], enforcing: boolean): void {
    this.policies = new Map(policies.map((policy) => [policy.name, policy]));
    this.enforcement = enforcing;
  }

  /** The policy of that name, if defined. */
  get(name: string): Policy | undefined {
    return this.policies.get(name);
  }

  /** Removes a policy; false when there was none of that name. */
  delete(name: string): boolean {
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
}
