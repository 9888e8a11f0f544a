/** One thing wrong with a policy. */
export interface PolicyIssue {
  /** A dotted path into the policy: `limit`, `penalty.blockMs`, `overrides.0.limit`. */
  field: string;
  /** What is wrong, e.g. `must be an integer from 1 to 1000000000`. */
  message: string;
}

/** A policy that does not validate; the message lists every issue (docs/guide.md, errors). */
export class PolicyValidationError extends Error {
  constructor(
    /** The policy's name as given, when it had one. */
    readonly policyName: string | undefined,
    /** Every issue found, each naming its field. */
    readonly issues: PolicyIssue[],
  ) {
    const shown = policyName && policyName.length > 64 ? `${policyName.slice(0, 64)}…` : policyName;
    const subject = shown === undefined ? 'policy' : `policy ${JSON.stringify(shown)}`;
    super(`Invalid ${subject}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    this.name = 'PolicyValidationError';
  }
}
