import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { SluiceAdminModuleOptions } from './config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from './config/sluice-admin.tokens.js';
import { ADMIN_DATA_SOURCE } from './database/admin.persistence.js';
import { adminTypeOrmOptions, openAdminDataSource } from './database/data-source.factory.js';
import { ADMIN_FEATURES } from './sluice-admin.features.js';
import {
  SluiceAdminConfigurableModule,
  type SluiceAdminModuleAsyncOptions,
  type SluiceAdminModuleRootOptions,
} from './sluice-admin.module-definition.js';

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
export class SluiceAdminModule {
  /** The admin with options known at start-up (docs/operations.md). */
  static forRoot(options: SluiceAdminModuleRootOptions): DynamicModule {
    return SluiceAdminConfigurableModule.forRoot.call(this, options);
  }

  /** The admin with options from a factory, a class or an existing provider. */
  static forRootAsync(options: SluiceAdminModuleAsyncOptions): DynamicModule {
    return SluiceAdminConfigurableModule.forRootAsync.call(this, options);
  }
}

// The builder's methods read its other static members through `this`: SluiceAdminModule inherits
// them at run time, while its declared type names only its own two methods.
Object.setPrototypeOf(SluiceAdminModule, SluiceAdminConfigurableModule);
