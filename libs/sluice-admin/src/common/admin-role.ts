/** What each role may do: viewer reads, operator also blocks/resets/overrides, admin everything. */
export type AdminRole = 'viewer' | 'operator' | 'admin';

/** The roles, each allowed what the ones before it are. */
export const ADMIN_ROLES: readonly AdminRole[] = ['viewer', 'operator', 'admin'];

export function isAdminRole(value: unknown): value is AdminRole {
  return (ADMIN_ROLES as readonly unknown[]).includes(value);
}

/** Whether `role` may do what `needed` may, in the order viewer, operator, admin. */
export function roleSatisfies(role: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(role) >= ADMIN_ROLES.indexOf(needed);
}
