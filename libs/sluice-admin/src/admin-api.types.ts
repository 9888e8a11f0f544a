// The @sluice/admin/api entry: the types of every request and response of the admin API, for
// the panel and for any other client, and the role order the server checks. Their definitions
// live in common/.
export type * from './common/admin-api.types.js';
export type * from './common/policy-file.types.js';
export { DECISION_COUNTS } from './common/admin-api.types.js';
export type { AdminRoute, AdminRoutes, AdminRoutesListed } from './common/admin-routes.js';
export { ADMIN_ROUTES } from './common/admin-routes.js';
export { ADMIN_ROLES, roleSatisfies } from './common/admin-role.js';
