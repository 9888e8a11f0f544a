/**
 * The names of Sluice's own policies (the admin's sign-in limits): no operator writes them, and
 * no allow or deny list entry or override reaches them, so an operator can never lock the admin
 * out of the admin (docs/security.md, "The admin's own limits").
 */
export const OWN_POLICY_PREFIX = 'sluice-admin.';

/** Whether `name` is one of Sluice's own policies. */
export function isOwnPolicy(name: string): boolean {
  return name.startsWith(OWN_POLICY_PREFIX);
}
