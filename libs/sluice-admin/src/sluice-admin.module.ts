import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditController } from './audit/audit.controller.js';
import { AuditService } from './audit/audit.service.js';
import { CountersController } from './instances/counters.controller.js';
import { CountersService } from './instances/counters.service.js';
import { EnforcementController } from './instances/enforcement.controller.js';
import { EnforcementService } from './instances/enforcement.service.js';
import { InspectController } from './instances/inspect.controller.js';
import { InstancesController } from './instances/instances.controller.js';
import { InstancesService } from './instances/instances.service.js';
import { RoutesController } from './instances/routes.controller.js';
import { AdminAuthModule } from './auth/auth.module.js';
import { EventsController } from './live/events.controller.js';
import { StatsController } from './live/stats.controller.js';
import { StatsService } from './live/stats.service.js';
import { AdminDocsStore } from './docs/admin-docs.store.js';
import { DocsController } from './docs/docs.controller.js';
import { ADMIN_DATA_SOURCE } from './database/admin.persistence.js';
import { adminTypeOrmOptions, openAdminDataSource } from './database/data-source.factory.js';
import { VersionedWrites } from './database/versioned-writes.service.js';
import { BlockedController } from './penalties/blocked.controller.js';
import { BlockedService } from './penalties/blocked.service.js';
import { ExpirySweeper } from './penalties/expiry.sweeper.js';
import { IdentifiersController } from './identifiers/identifiers.controller.js';
import { IdentifiersService } from './identifiers/identifiers.service.js';
import { PenaltiesController } from './penalties/penalties.controller.js';
import { PenaltyHistoryService } from './penalties/penalty-history.service.js';
import { PenaltyRecorder } from './penalties/penalty.recorder.js';
import { WebhookDispatcher } from './penalties/webhook.dispatcher.js';
import { AdminStartup } from './policies/admin.startup.js';
import { CodeDefaultsSeeder } from './policies/code-defaults.seeder.js';
import { PoliciesController } from './policies/policies.controller.js';
import { PolicyReader } from './policies/policy-reader.service.js';
import { PolicyWriter } from './policies/policy-writer.service.js';
import { RevisionsController } from './policies/revisions.controller.js';
import { SnapshotPublisher } from './policies/snapshot.publisher.js';
import { SluiceAdminConfigurableModule } from './sluice-admin.module-definition.js';
import type { SluiceAdminModuleOptions } from './config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from './config/sluice-admin.tokens.js';

/** The API's controllers, served under /<path>/api. */
const ADMIN_CONTROLLERS = [
  PoliciesController,
  RevisionsController,
  EnforcementController,
  RoutesController,
  InstancesController,
  InspectController,
  CountersController,
  AuditController,
  BlockedController,
  PenaltiesController,
  IdentifiersController,
  DocsController,
  StatsController,
  EventsController,
];

/**
 * The admin API over PostgreSQL (docs/operations.md): `SluiceAdminModule.forRoot({ database, auth, path })`
 * or `.forRootAsync({ imports, inject, useFactory | useClass | useExisting, path })`. Needs
 * SluiceModule in the same application: it publishes through its PolicyBus.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      name: ADMIN_DATA_SOURCE,
      inject: [ADMIN_OPTIONS],
      useFactory: (options: SluiceAdminModuleOptions) => adminTypeOrmOptions(options),
      dataSourceFactory: openAdminDataSource,
    }),
    AdminAuthModule,
  ],
  controllers: ADMIN_CONTROLLERS,
  providers: [
    VersionedWrites,
    SnapshotPublisher,
    CodeDefaultsSeeder,
    AdminStartup,
    PolicyReader,
    PolicyWriter,
    EnforcementService,
    InstancesService,
    CountersService,
    AuditService,
    BlockedService,
    PenaltyHistoryService,
    PenaltyRecorder,
    WebhookDispatcher,
    IdentifiersService,
    ExpirySweeper,
    AdminDocsStore,
    StatsService,
  ],
})
export class SluiceAdminModule extends SluiceAdminConfigurableModule {}
