import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { PoliciesModule } from '../policies/policies.module.js';
import { ListsController } from './lists.controller.js';
import { ListsService } from './lists.service.js';

/** The allow and deny lists: read, add, remove. */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule, PoliciesModule],
  controllers: [ListsController],
  providers: [ListsService],
})
export class ListsModule {}
