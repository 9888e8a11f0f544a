// The admin API's types, one file per area: what the routes take and answer, which the
// `@sluice/admin/api` entry publishes and the panel's client is typed with.
export type { AdminRole } from './admin-role.js';
export type { FieldIssue } from './invalid-request.exception.js';
export type * from './policies-api.types.js';
export type * from './identifiers-api.types.js';
export type * from './profiles-api.types.js';
export type * from './penalties-api.types.js';
export type * from './live-api.types.js';
export { DECISION_COUNTS } from './live-api.types.js';
