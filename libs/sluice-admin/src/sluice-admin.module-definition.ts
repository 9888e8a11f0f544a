import {
  ConfigurableModuleBuilder,
  Logger,
  type ConfigurableModuleAsyncOptions,
  type DynamicModule,
} from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { ADMIN_FEATURES } from './sluice-admin.features.js';
import { describeAdminRoutes } from './common/admin-controller.decorator.js';
import { PanelFiles } from './serving/panel.files.js';
import { builtPanelRoot } from './serving/panel.location.js';
import { PanelServer } from './serving/panel.server.js';
import type {
  SluiceAdminModuleExtras,
  SluiceAdminModuleOptions,
} from './config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS, ADMIN_PATH, PANEL_FILES } from './config/sluice-admin.tokens.js';

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
 * The built panel's files, served at /<path> by PanelServer: every path under it that names no
 * file is answered with its index.html (the panel routes in the browser); /<path>/api stays the
 * API's.
 */
function panelFiles(path: string, panel: SluiceAdminModuleExtras['panel']): PanelFiles | null {
  if (panel === false) return null;
  const rootPath = typeof panel === 'object' ? panel.root : builtPanelRoot();
  if (rootPath === undefined) {
    new Logger('SluiceAdmin').warn(
      `This copy of @sluice/admin has no built panel (dist/panel), so /${path} serves the API only: reinstall the package, or in the Sluice repository run npm run build`,
    );
    return null;
  }
  return new PanelFiles(rootPath, path);
}

/**
 * Serves the API (and the auth module's session routes) under /<path>/api and the panel at
 * /<path>, and makes the options and path injectable everywhere: the auth module and the TypeORM
 * options factory read them.
 */
function mount(definition: DynamicModule, extras: SluiceAdminModuleExtras): DynamicModule {
  const path = adminPath(extras.path);
  if (extras.appOpenApi === true) describeAdminRoutes(true);
  return {
    ...definition,
    global: true,
    imports: [
      ...(definition.imports ?? []),
      RouterModule.register([
        { path: `${path}/api`, module: definition.module, children: [...ADMIN_FEATURES] },
      ]),
    ],
    providers: [
      ...(definition.providers ?? []),
      { provide: ADMIN_PATH, useValue: path },
      { provide: PANEL_FILES, useFactory: () => panelFiles(path, extras.panel) },
      PanelServer,
    ],
    exports: [...(definition.exports ?? []), ADMIN_OPTIONS, ADMIN_PATH],
  };
}

export const { ConfigurableModuleClass: SluiceAdminConfigurableModule } =
  new ConfigurableModuleBuilder<SluiceAdminModuleOptions>({
    moduleName: 'SluiceAdmin',
    optionsInjectionToken: ADMIN_OPTIONS,
  })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createSluiceAdminOptions')
    .setExtras<SluiceAdminModuleExtras>({ path: 'sluice', panel: true, appOpenApi: false }, mount)
    .build();

/** What `SluiceAdminModule.forRoot()` takes: the module's options beside `path` and `panel`. */
export type SluiceAdminModuleRootOptions = SluiceAdminModuleOptions &
  Partial<SluiceAdminModuleExtras>;

/**
 * What `SluiceAdminModule.forRootAsync()` takes: `imports`, `inject` and one of `useFactory`,
 * `useClass` (with `createSluiceAdminOptions()`) or `useExisting`, beside `path`, `panel` and
 * `appOpenApi`, which shape the module and so cannot come from a factory.
 */
export type SluiceAdminModuleAsyncOptions = ConfigurableModuleAsyncOptions<
  SluiceAdminModuleOptions,
  'createSluiceAdminOptions'
> &
  Partial<SluiceAdminModuleExtras>;
