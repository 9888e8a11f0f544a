import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AuthService } from './auth.service.js';
import { AUTH_ENTITIES } from '../database/auth.persistence.js';
import { CredentialRegistry } from './credential.registry.js';
import { CredentialSynchronizer } from './credential.synchronizer.js';
import { SessionController } from './session.controller.js';
import { SessionStore } from './session.store.js';
import { SignInLimiter } from './sign-in.limiter.js';

/**
 * Credentials, sessions and the guard. Needs ADMIN_OPTIONS and ADMIN_PATH injectable (the admin
 * module provides them globally) and the 'sluice' DataSource with AUTH_ENTITIES and AUTH_MIGRATIONS.
 */
@Module({
  imports: [TypeOrmModule.forFeature(AUTH_ENTITIES, 'sluice')],
  controllers: [SessionController],
  providers: [
    CredentialSynchronizer,
    CredentialRegistry,
    SessionStore,
    SignInLimiter,
    AuthService,
    AdminAuthGuard,
  ],
  exports: [AuthService, AdminAuthGuard],
})
export class AdminAuthModule {}
