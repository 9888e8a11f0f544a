import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { AdminAuthModule } from './auth/auth.module.js';
import type {
  SluiceAdminModuleExtras,
  SluiceAdminModuleOptions,
} from './sluice-admin-options.interface.js';
import { ADMIN_OPTIONS, ADMIN_PATH } from './sluice-admin.tokens.js';

const PATH = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/** The `path` extra without its outer slashes; throws naming the option when it is not a path. */
export function adminPath(path: unknown): string {
  const trimmed = typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : '';
  const dotted = trimmed.split('/').some((segment) => segment === '.' || segment === '..');
  if (!PATH.test(trimmed) || dotted) {
    throw new Error(
      `SluiceAdminModule path: must be URL path segments of letters, digits, '.', '_', '~' or '-' (like 'sluice' or 'ops/sluice'), got ${JSON.stringify(path)}`,
    );
  }
  return trimmed;
}

/**
 * Serves the API (and the auth module's session routes) under /<path>/api, and makes the options
 * and path injectable everywhere: the auth module and the TypeORM options factory read them.
 */
function mount(definition: DynamicModule, extras: SluiceAdminModuleExtras): DynamicModule {
  const path = adminPath(extras.path);
  return {
    ...definition,
    global: true,
    imports: [
      ...(definition.imports ?? []),
      RouterModule.register([
        { path: `${path}/api`, module: definition.module, children: [AdminAuthModule] },
      ]),
    ],
    providers: [...(definition.providers ?? []), { provide: ADMIN_PATH, useValue: path }],
    exports: [...(definition.exports ?? []), ADMIN_OPTIONS, ADMIN_PATH],
  };
}

export const {
  ConfigurableModuleClass: SluiceAdminConfigurableModule,
  OPTIONS_TYPE: SLUICE_ADMIN_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: SLUICE_ADMIN_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<SluiceAdminModuleOptions>({
  moduleName: 'SluiceAdmin',
  optionsInjectionToken: ADMIN_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createSluiceAdminOptions')
  .setExtras<SluiceAdminModuleExtras>({ path: 'sluice' }, mount)
  .build();
