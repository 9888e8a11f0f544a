export interface PolicyIssue {
  /** A dotted path into the policy: `limit`, `penalty.blockMs`, `overrides.0.limit`. */
  field: string;
  message: string;
}

export class PolicyValidationError extends Error {
  constructor(
    readonly policyName: string | undefined,
    readonly issues: PolicyIssue[],
  ) {
    const shown = policyName && policyName.length > 64 ? `${policyName.slice(0, 64)}…` : policyName;
    const subject = shown === undefined ? 'policy' : `policy ${JSON.stringify(shown)}`;
    super(`Invalid ${subject}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    this.name = 'PolicyValidationError';
  }
}
