import { Module, type INestApplication, type ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SluiceModule, SluiceService } from '@sluice/nest';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RouteRegistry, type HeaderStyle } from '@sluice/nest/internals';
import {
  ADAPTERS,
  closeAppsAfterEach,
  createApp,
  fetchTimes,
  uniquePrefix,
  type AdapterName,
  type RunningApp,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { catalogApp, fromClass, fromFactory, plainApp, typosApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

async function statuses(url: string, times: number): Promise<number[]> {
  return (await fetchTimes(url, times)).map((response) => response.status);
}

/** Builds and initialises the app, expecting start-up to fail: the error it failed with. */
async function startupError(adapter: AdapterName, metadata: ModuleMetadata): Promise<Error> {
  let app: INestApplication | undefined;
  try {
    app = await createApp(adapter, metadata);
    await app.init();
  } catch (error) {
    return error as Error;
  } finally {
    await app?.close();
  }
  throw new Error('the application started');
}

describe.each(ADAPTERS)('SluiceModule set-up on %s', (adapter) => {
  const start = (metadata: ModuleMetadata): Promise<RunningApp> => startApp(adapter, metadata);

  it.each([
    ['forRootAsync({ useFactory, inject })', fromFactory],
    ['forRootAsync({ useClass })', fromClass],
  ])('takes its options from a config provider with %s', async (_, build) => {
    const prefix = uniquePrefix('module-setup');
    const { url } = await start(
      build({ REDIS_URL: inject('redisUrl'), RATE_LIMIT_PREFIX: prefix }),
    );
    expect(await statuses(`${url}/guarded`, 2)).toEqual([200, 429]);
    // Counted in the configured Redis, under the configured prefix.
    expect(await connectRedis().keys(`${prefix}:*`)).not.toEqual([]);
  });

  it('limits a controller without @UseGuards when global: true', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('module-setup') };
    const { url } = await start(plainApp({ ...options, global: true }));
    expect(await statuses(`${url}/plain`, 2)).toEqual([200, 429]);
  });

  it('leaves a controller without @UseGuards alone by default', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('module-setup') };
    const { url } = await start(plainApp(options));
    expect(await statuses(`${url}/plain`, 3)).toEqual([200, 200, 200]);
  });

  it('refuses to start when @Throttle names policies defined nowhere, listing each', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('module-setup') };
    const error = await startupError(adapter, typosApp(options));
    expect(error.message).toContain('"undefined-one" (used by TyposController.first)');
    expect(error.message).toContain('"undefined-two" (used by TyposController.second)');
    expect(error.message).not.toContain('"configured"');
  });

  it.each([
    ['headers', { headers: 'nope' as unknown as HeaderStyle }],
    ['prefix', { prefix: 'has space' }],
    ['timeoutMs', { timeoutMs: 0 }],
    ['scripting', { scripting: 'evalsha' as unknown as 'eval' }],
    ['batch.maxCalls', { batch: { maxCalls: 0 } }],
    ['batch.holdMs', { batch: { holdMs: 1.5 } }],
    ['allow.addresses[1]', { allow: { addresses: ['127.0.0.1', '10.0.0.0/40'] } }],
    ['allow.users', { allow: { users: ['ann'] } as never }],
    ['ipv6Prefix', { ipv6Prefix: 20 }],
    ['tiers.resolve', { tiers: { resolve: 'plan' } as never }],
    ['tiers.timeoutMs', { tiers: { resolve: () => 'pro', timeoutMs: 0 } }],
    ['openTelemetry', { openTelemetry: 'yes' as unknown as boolean }],
    ['trafficProfile', { trafficProfile: true as unknown as false }],
    ['trafficProfile.sampleBound', { trafficProfile: { sampleBound: 50 } }],
    ['trafficProfile.retentionHours', { trafficProfile: { retentionHours: 0.5 } }],
    ['trafficProfile.replayRecords', { trafficProfile: { replayRecords: -1 } }],
    ['trafficProfile.retention', { trafficProfile: { retention: 3 } as never }],
    [
      'policies',
      {
        policies: [
          { name: 'twin', algorithm: 'gcra' as const, limit: 1, periodMs: 1000 },
          { name: 'twin', algorithm: 'gcra' as const, limit: 2, periodMs: 1000 },
        ],
      },
    ],
  ])('refuses bad module options, naming options.%s', async (field, bad) => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('module-setup'), ...bad };
    const error = await startupError(adapter, plainApp(options));
    expect(error.message).toContain(`SluiceModule options.${field}:`);
  });

  it('lists the decorated routes with their method, path and policies', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('module-setup') };
    const { app } = await start(catalogApp(options));
    const byHandler = (a: { handler: string }, b: { handler: string }) =>
      a.handler.localeCompare(b.handler);
    expect([...app.get(RouteRegistry).all()].sort(byHandler)).toEqual([
      {
        owner: 'CatalogController',
        handler: 'import',
        method: 'POST',
        path: '/catalog/import',
        policies: ['browse', 'write'],
        skipped: false,
        tier: null,
        countedByAddress: [],
      },
      {
        owner: 'CatalogController',
        handler: 'list',
        method: 'GET',
        path: '/catalog',
        policies: ['browse'],
        skipped: false,
        tier: null,
        countedByAddress: [],
      },
      {
        owner: 'CatalogController',
        handler: 'show',
        method: 'GET',
        path: '/catalog/:id',
        policies: ['browse'],
        skipped: true,
        tier: null,
        countedByAddress: [],
      },
    ]);
  });
});

describe('SluiceModule in an application context (a worker or a script, no HTTP server)', () => {
  it('starts, decides through SluiceService and closes', async () => {
    const prefix = uniquePrefix('module-setup-context');
    class WorkerModule {}
    Module({
      imports: [
        SluiceModule.forRoot({
          redis: connectRedis(inject('redisUrl')),
          prefix,
          policies: [
            { name: 'jobs', key: 'user', algorithm: 'fixed-window', limit: 1, periodMs: 3_600_000 },
          ],
        }),
      ],
    })(WorkerModule);
    const context = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    try {
      const sluice = context.get(SluiceService);
      const first = await sluice.consume('jobs', 'worker-1');
      const second = await sluice.consume('jobs', 'worker-1');
      expect([first.allowed, second.allowed]).toEqual([true, false]);
      expect(second.reason).toBe('limit');
    } finally {
      await context.close();
    }
  });
});
