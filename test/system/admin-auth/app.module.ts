import {
  Controller,
  Delete,
  Get,
  Module,
  Post,
  UseGuards,
  type DynamicModule,
  type ModuleMetadata,
} from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { SluiceModule, type SluiceModuleOptions } from '@sluice/nest';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Actor } from '@sluice/admin/src/common/actor.js';
import type { AdminAuthOptions } from '@sluice/admin/src/config/admin-auth-options.interface.js';
import { AdminAuthGuard } from '@sluice/admin/src/auth/admin-auth.guard.js';
import { AdminAuthModule } from '@sluice/admin/src/auth/auth.module.js';
import { AUTH_ENTITIES, AUTH_MIGRATIONS } from '@sluice/admin/src/database/auth.persistence.js';
import { CurrentActor } from '@sluice/admin/src/auth/current-actor.decorator.js';
import { RequireRole } from '@sluice/admin/src/auth/require-role.decorator.js';
import { ADMIN_ENTITIES, ADMIN_MIGRATIONS } from '@sluice/admin/src/database/admin.persistence.js';
import { ADMIN_OPTIONS, ADMIN_PATH } from '@sluice/admin/src/config/sluice-admin.tokens.js';

/** Stands in for the admin API: one route per role. */
@Controller('things')
@UseGuards(AdminAuthGuard)
export class ThingsController {
  @Get()
  read(@CurrentActor() actor: Actor): Actor {
    return actor;
  }

  @Post()
  @RequireRole('operator')
  change(@CurrentActor() actor: Actor): { changedBy: string } {
    return { changedBy: actor.name };
  }

  @Delete()
  @RequireRole('admin')
  remove(@CurrentActor() actor: Actor): { removedBy: string } {
    return { removedBy: actor.name };
  }
}

@Module({ imports: [AdminAuthModule], controllers: [ThingsController] })
class ThingsModule {}

/** What SluiceAdminModule provides globally: its options and its path. */
@Module({})
class AdminOptionsModule {
  static of(auth: AdminAuthOptions): DynamicModule {
    return {
      module: AdminOptionsModule,
      global: true,
      providers: [
        { provide: ADMIN_OPTIONS, useValue: { auth } },
        { provide: ADMIN_PATH, useValue: 'sluice' },
      ],
      exports: [ADMIN_OPTIONS, ADMIN_PATH],
    };
  }
}

/**
 * The auth module and a guarded controller under /sluice/api, on the database at `databaseUrl`
 * (with the admin's tables too: sign-ins and sign-outs are audited). SluiceModule decides the
 * sign-in limit: in this process's memory unless `sluice` names a Redis.
 */
export function adminAuthApp(
  databaseUrl: string,
  auth: AdminAuthOptions,
  sluice: SluiceModuleOptions = {},
): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot(sluice),
      AdminOptionsModule.of(auth),
      TypeOrmModule.forRoot({
        name: 'sluice',
        type: 'postgres',
        url: databaseUrl,
        entities: [...ADMIN_ENTITIES, ...AUTH_ENTITIES],
        migrations: [...ADMIN_MIGRATIONS, ...AUTH_MIGRATIONS],
        migrationsRun: true,
        synchronize: false,
        retryAttempts: 0,
        extra: { connectionTimeoutMillis: 2_000, query_timeout: 5_000 },
      }),
      AdminAuthModule,
      ThingsModule,
      RouterModule.register([
        { path: 'sluice/api', module: AdminAuthModule },
        { path: 'sluice/api', module: ThingsModule },
      ]),
    ],
  };
}
