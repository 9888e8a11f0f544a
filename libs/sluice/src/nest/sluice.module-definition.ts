import {
  ConfigurableModuleBuilder,
  type ConfigurableModuleAsyncOptions,
  type DynamicModule,
} from '@nestjs/common';
import { APP_GUARD, ModulesContainer } from '@nestjs/core';
import type {
  SluiceModuleExtras,
  SluiceModuleOptions,
} from '../config/sluice-options.interface.js';
import { metricsController } from '../metrics/metrics.controller.js';
import { SluiceMetrics } from '../metrics/sluice.metrics.js';
import { GLOBAL_GUARD, SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import { attachOutcomeInterceptor } from './handler-outcome.attacher.js';

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

/** Resolved while Nest creates the providers: the resolvers and gateways it marked. */
const OUTCOME_INTERCEPTOR_ATTACHED = Symbol('sluice:outcome-interceptor-attached');

/**
 * `global` adds the guard as APP_GUARD; `metrics` adds the metrics and their route; every module
 * puts the handler outcome interceptor on the app's resolvers and gateways, and only there.
 */
function withExtras(definition: DynamicModule, extras: SluiceModuleExtras): DynamicModule {
  const providers = [...(definition.providers ?? [])];
  const controllers = [...(definition.controllers ?? [])];
  if (extras.global) providers.push({ provide: APP_GUARD, useExisting: GLOBAL_GUARD });
  providers.push({
    provide: OUTCOME_INTERCEPTOR_ATTACHED,
    useFactory: attachOutcomeInterceptor,
    inject: [ModulesContainer],
  });
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
