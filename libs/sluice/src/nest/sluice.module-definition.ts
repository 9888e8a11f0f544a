import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { SluiceModuleExtras, SluiceModuleOptions } from './sluice-options.interface.js';
import { GLOBAL_GUARD } from './sluice.tokens.js';

export const {
  ConfigurableModuleClass: SluiceConfigurableModule,
  MODULE_OPTIONS_TOKEN: SLUICE_OPTIONS,
  OPTIONS_TYPE: SLUICE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: SLUICE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<SluiceModuleOptions>({ moduleName: 'Sluice' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createSluiceOptions')
  .setExtras<SluiceModuleExtras>(
    { global: false },
    (definition: DynamicModule, extras): DynamicModule =>
      extras.global
        ? {
            ...definition,
            providers: [
              ...(definition.providers ?? []),
              { provide: APP_GUARD, useExisting: GLOBAL_GUARD },
            ],
          }
        : definition,
  )
  .build();
