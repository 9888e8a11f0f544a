import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';

/** GET /audit: who changed what. */
@Module({
  imports: [AdminAuthModule],
  controllers: [AuditController],
  providers: [AuditService],
})
export class AuditModule {}
