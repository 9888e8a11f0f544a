import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { SluiceAdminModuleOptions } from './config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from './config/sluice-admin.tokens.js';
import { ADMIN_DATA_SOURCE } from './database/admin.persistence.js';
import { adminTypeOrmOptions, openAdminDataSource } from './database/data-source.factory.js';
import { ADMIN_FEATURES } from './sluice-admin.features.js';
import { SluiceAdminConfigurableModule } from './sluice-admin.module-definition.js';

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
    ...ADMIN_FEATURES,
  ],
})
export class SluiceAdminModule extends SluiceAdminConfigurableModule {}
