import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { AdminStartup } from './admin.startup.js';
import { CandidateService } from './candidate.service.js';
import { CandidatesController } from './candidates.controller.js';
import { CodeDefaultsSeeder } from './code-defaults.seeder.js';
import { PoliciesController } from './policies.controller.js';
import { PolicyCommits } from './policy-commits.service.js';
import { PolicyReader } from './policy-reader.service.js';
import { PolicyWriter } from './policy-writer.service.js';
import { RevisionsController } from './revisions.controller.js';
import { SnapshotPublisher } from './snapshot.publisher.js';

/** Policies and their revisions: reads, versioned writes, and publishing to every instance. */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule],
  controllers: [PoliciesController, RevisionsController, CandidatesController],
  providers: [
    SnapshotPublisher,
    PolicyCommits,
    CodeDefaultsSeeder,
    AdminStartup,
    PolicyReader,
    PolicyWriter,
    CandidateService,
  ],
  exports: [SnapshotPublisher, PolicyCommits],
})
export class PoliciesModule {}
