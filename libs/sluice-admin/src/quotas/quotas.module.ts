import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDatabaseModule } from '../database/admin-database.module.js';
import { QuotasController } from './quotas.controller.js';
import { QuotasService } from './quotas.service.js';

/** Quotas: an identifier's current period read, credited and debited, each write audited. */
@Module({
  imports: [AdminAuthModule, AdminDatabaseModule],
  controllers: [QuotasController],
  providers: [QuotasService],
})
export class QuotasModule {}
