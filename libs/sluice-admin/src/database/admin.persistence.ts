import { AdminAuditEntity } from './admin-audit.entity.js';
import { AdminSchema1795305600000 } from './migrations/1795305600000-admin-schema.migration.js';
import { PolicyCandidates1795428000000 } from './migrations/1795428000000-policy-candidates.migration.js';
import { CandidateSample1795500000000 } from './migrations/1795500000000-candidate-sample.migration.js';
import { PenaltyIdentifierKey1795900000000 } from './migrations/1795900000000-penalty-identifier-key.migration.js';
import { ListEntries1796000000000 } from './migrations/1796000000000-list-entries.migration.js';
import { PolicyFiles1796100000000 } from './migrations/1796100000000-policy-files.migration.js';
import { GrantKeys1796200000000 } from './migrations/1796200000000-grant-keys.migration.js';
import { AppliedPolicyFileEntity } from './applied-policy-file.entity.js';
import { ListEntryEntity } from './list-entry.entity.js';
import { PenaltyEntity } from './penalty.entity.js';
import { PolicyCandidateEntity } from './policy-candidate.entity.js';
import { PolicyRevisionEntity } from './policy-revision.entity.js';
import { PolicyEntity } from './policy.entity.js';
import { SettingEntity } from './setting.entity.js';

/** The name of the admin's TypeORM DataSource, for `@InjectDataSource` and `forFeature`. */
export const ADMIN_DATA_SOURCE = 'sluice';

export const ADMIN_ENTITIES = [
  SettingEntity,
  PolicyEntity,
  PolicyRevisionEntity,
  AdminAuditEntity,
  PenaltyEntity,
  PolicyCandidateEntity,
  ListEntryEntity,
  AppliedPolicyFileEntity,
];

export const ADMIN_MIGRATIONS = [
  AdminSchema1795305600000,
  PolicyCandidates1795428000000,
  CandidateSample1795500000000,
  PenaltyIdentifierKey1795900000000,
  ListEntries1796000000000,
  PolicyFiles1796100000000,
  GrantKeys1796200000000,
];
