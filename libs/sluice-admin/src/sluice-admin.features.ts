import { AuditModule } from './audit/audit.module.js';
import { AdminAuthModule } from './auth/auth.module.js';
import { DocsModule } from './docs/docs.module.js';
import { IdentifiersModule } from './identifiers/identifiers.module.js';
import { InstancesModule } from './instances/instances.module.js';
import { ListsModule } from './lists/lists.module.js';
import { LiveModule } from './live/live.module.js';
import { PenaltiesModule } from './penalties/penalties.module.js';
import { PoliciesModule } from './policies/policies.module.js';
import { PolicyFileModule } from './policy-file/policy-file.module.js';
import { QuotasModule } from './quotas/quotas.module.js';
import { PlansModule } from './plans/plans.module.js';
import { ProfilesModule } from './profiles/profiles.module.js';

/**
 * The feature modules, one per folder, whose controllers are served under /<path>/api and
 * described by setupSluiceAdminDocs (docs/architecture.md, folders and layers).
 */
export const ADMIN_FEATURES = [
  AdminAuthModule,
  PoliciesModule,
  InstancesModule,
  AuditModule,
  PenaltiesModule,
  ListsModule,
  PolicyFileModule,
  IdentifiersModule,
  ProfilesModule,
  QuotasModule,
  PlansModule,
  LiveModule,
  DocsModule,
];
