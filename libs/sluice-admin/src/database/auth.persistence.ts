import { CredentialEntity } from './credential.entity.js';
import { AdminCredentials1795341600000 } from './migrations/1795341600000-admin-credentials.migration.js';
import { CredentialGeneration1795800000000 } from './migrations/1795800000000-credential-generation.migration.js';
import { SessionEntity } from './session.entity.js';

/** For the 'sluice' DataSource's `entities` (AdminAuthModule registers them with forFeature). */
export const AUTH_ENTITIES = [CredentialEntity, SessionEntity];

/** For the 'sluice' DataSource's `migrations`. */
export const AUTH_MIGRATIONS = [AdminCredentials1795341600000, CredentialGeneration1795800000000];
