export { SluiceAdminModule } from './sluice-admin.module.js';
export { setupSluiceAdminDocs } from './setup-admin-docs.js';
export { credentialProblems } from './auth/credentials.parser.js';
export {
  startEmbeddedDatabase,
  type EmbeddedDatabase,
  type EmbeddedDatabaseOptions,
} from './database/embedded.database.js';
export type {
  SluiceAdminModuleAsyncOptions,
  SluiceAdminModuleRootOptions,
} from './sluice-admin.module-definition.js';
export type {
  AdminDatabaseOptions,
  AdminPenaltyOptions,
  PenaltyWebhook,
  SluiceAdminModuleExtras,
  SluiceAdminModuleOptions,
} from './config/sluice-admin-options.interface.js';
export type { AdminAuthOptions, AdminCredential } from './config/admin-auth-options.interface.js';
export type { Actor } from './common/actor.js';
export type { AdminRole } from './common/admin-role.js';
