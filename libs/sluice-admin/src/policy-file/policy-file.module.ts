import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { PoliciesModule } from '../policies/policies.module.js';
import { PolicyFileController } from './policy-file.controller.js';
import { PolicyFileService } from './policy-file.service.js';

/** Policies as code: export, diff and apply of one document (docs/operations.md). */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule, PoliciesModule],
  controllers: [PolicyFileController],
  providers: [PolicyFileService],
})
export class PolicyFileModule {}
