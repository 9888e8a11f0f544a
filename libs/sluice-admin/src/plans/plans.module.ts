import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { PoliciesModule } from '../policies/policies.module.js';
import { PlansController } from './plans.controller.js';
import { PlansService } from './plans.service.js';

/** A customer's plan: one tier across every policy that has it (docs/operations.md, "Plans"). */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule, PoliciesModule],
  controllers: [PlansController],
  providers: [PlansService],
})
export class PlansModule {}
