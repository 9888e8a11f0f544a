import {
  ConfigurableModuleBuilder,
  type ConfigurableModuleAsyncOptions,
  type DynamicModule,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { createRequire } from 'node:module';
import type {
  SluiceModuleExtras,
  SluiceModuleOptions,
} from '../config/sluice-options.interface.js';
import { metricsController } from '../metrics/metrics.controller.js';
import { SluiceMetrics } from '../metrics/sluice.metrics.js';
import { GLOBAL_GUARD, SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import { HandlerOutcomeInterceptor } from './handler-outcome.interceptor.js';

const METRICS_PATH = /^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/** The metrics route's path; throws naming the option when it is not one. */
function metricsPath(metrics: SluiceModuleExtras['metrics']): string | undefined {
  if (metrics === undefined || metrics === false) return undefined;
  const path = metrics === true ? 'metrics' : (metrics.path ?? 'metrics');
  if (typeof path !== 'string' || !METRICS_PATH.test(path)) {
    throw new Error(
      `SluiceModule metrics.path: must be a URL path like 'metrics' or 'ops/metrics', got ${JSON.stringify(path)}`,
    );
  }
  return path;
}

/**
 * Whether the app can run GraphQL resolvers or WebSocket handlers: only then does the module add
 * the interceptor that tells the guard how one ended, so HTTP-only apps pay nothing for it.
 */
function installed(peer: string): boolean {
  const require = createRequire(import.meta.url);
  // From this package, else from the app's folder: a strict layout (pnpm) links the app's
  // peer beside the app, not beside Sluice, which does not depend on it.
  for (const paths of [undefined, [process.cwd()]]) {
    try {
      require.resolve(peer, paths === undefined ? undefined : { paths });
      return true;
    } catch {
      // Not found from there.
    }
  }
  return false;
}

/**
 * `global` adds the guard as APP_GUARD; `metrics` adds the metrics and their route; with
 * @nestjs/graphql or @nestjs/websockets installed, the handler outcome interceptor.
 */
function withExtras(definition: DynamicModule, extras: SluiceModuleExtras): DynamicModule {
  const providers = [...(definition.providers ?? [])];
  const controllers = [...(definition.controllers ?? [])];
  if (extras.global) providers.push({ provide: APP_GUARD, useExisting: GLOBAL_GUARD });
  if (installed('@nestjs/graphql') || installed('@nestjs/websockets')) {
    providers.push({ provide: APP_INTERCEPTOR, useClass: HandlerOutcomeInterceptor });
  }
  const path = metricsPath(extras.metrics);
  if (path !== undefined) {
    providers.push(SluiceMetrics);
    controllers.push(metricsController(path));
  }
  return {
    ...definition,
    providers,
    controllers,
    exports: [...(definition.exports ?? []), ...(path === undefined ? [] : [SluiceMetrics])],
  };
}

export const { ConfigurableModuleClass: SluiceConfigurableModule } =
  new ConfigurableModuleBuilder<SluiceModuleOptions>({
    moduleName: 'Sluice',
    optionsInjectionToken: SLUICE_OPTIONS,
  })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createSluiceOptions')
    .setExtras<SluiceModuleExtras>({ global: false, metrics: false }, withExtras)
    .build();

export { SLUICE_OPTIONS };

/**
 * What `SluiceModule.forRootAsync()` takes: `imports`, `inject` and one of `useFactory`,
 * `useClass` (a class with `createSluiceOptions()`) or `useExisting`, beside `global` and
 * `metrics`, which shape the module and so cannot come from a factory.
 */
export type SluiceModuleAsyncOptions = ConfigurableModuleAsyncOptions<
  SluiceModuleOptions,
  'createSluiceOptions'
> &
  Partial<SluiceModuleExtras>;
