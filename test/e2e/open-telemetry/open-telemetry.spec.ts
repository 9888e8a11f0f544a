import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, fetchTimes, uniquePrefix } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { traceRequests, tracedApp } from './app.module.js';

afterAll(closeAll);

/** Reads the meter provider's metrics when asked, as an exporter would on its interval. */
class ReadOnDemand extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const reader = new ReadOnDemand();
const spans = new InMemorySpanExporter();

// The app's SDK starts before Nest does (docs/operations.md, "OpenTelemetry").
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
});

/** Every point of the metric named, with its attributes. */
async function points(name: string): Promise<Array<DataPoint<number | Histogram>>> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((each) => each.descriptor.name === name);
  return (metric?.dataPoints ?? []) as Array<DataPoint<number | Histogram>>;
}

async function value(
  name: string,
  attributes: Record<string, string> = {},
): Promise<number | undefined> {
  const found = (await points(name)).find(
    (point) => JSON.stringify(point.attributes) === JSON.stringify(attributes),
  );
  return found === undefined ? undefined : (found.value as number);
}

describe.each(ADAPTERS)('OpenTelemetry on %s', (adapter) => {
  const start = closeAppsAfterEach();

  it('counts decisions by policy, outcome and tier, and times the store, on the global meter', async () => {
    const reply = (outcome: string) => ({ 'sluice.policy': 'reply', 'sluice.outcome': outcome });
    const pro = { 'sluice.policy': 'quote', 'sluice.outcome': 'allowed', 'sluice.tier': 'pro' };
    // The counts are cumulative over the file: each test reads what its own requests added.
    const counted = async () => ({
      allowed: (await value('sluice.decisions', reply('allowed'))) ?? 0,
      rejected: (await value('sluice.decisions', reply('rejected'))) ?? 0,
      cached: (await value('sluice.decisions', reply('cache_block'))) ?? 0,
      pro: (await value('sluice.decisions', pro)) ?? 0,
      hits: (await value('sluice.block_cache.hits')) ?? 0,
      timed:
        ((await points('sluice.store.duration'))[0]?.value as Histogram | undefined)?.count ?? 0,
    });
    const before = await counted();
    const { url } = await start(
      adapter,
      tracedApp({ redisUrl: inject('redisUrl'), prefix: uniquePrefix('otel') }),
    );
    const statuses = (await fetchTimes(`${url}/reply`, 5, { headers: { 'x-user': 'harry' } })).map(
      (response) => response.status,
    );
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const quotes = await fetchTimes(`${url}/quote`, 3, {
      headers: { 'x-user': 'harry', 'x-plan': 'pro' },
    });
    expect(quotes.map((response) => response.status)).toEqual([200, 200, 200]);

    const after = await counted();
    expect({
      allowed: after.allowed - before.allowed,
      rejected: after.rejected - before.rejected,
      cached: after.cached - before.cached,
      pro: after.pro - before.pro,
      hits: after.hits - before.hits,
      timed: after.timed - before.timed,
    }).toEqual({ allowed: 2, rejected: 1, cached: 2, pro: 3, hits: 2, timed: 6 });
    expect(await value('sluice.breaker.state')).toBe(0);
    expect(await value('sluice.block_cache.size')).toBe(1);
  });

  it("notes each decision on the request's span, and which policy refused it", async () => {
    spans.reset();
    const { url } = await start(
      adapter,
      tracedApp({ redisUrl: inject('redisUrl'), prefix: uniquePrefix('otel') }),
      traceRequests,
    );
    await fetchTimes(`${url}/reply`, 3, { headers: { 'x-user': 'ron' } });
    const finished = spans.getFinishedSpans();
    expect(finished).toHaveLength(3);
    const events = finished.map((span) =>
      span.events.find((event) => event.name === 'sluice.decision'),
    );
    expect(events.map((event) => event?.attributes?.['sluice.allowed'])).toEqual([
      true,
      true,
      false,
    ]);
    expect(events[0]?.attributes).toMatchObject({
      'sluice.policy': 'reply',
      'sluice.reason': 'ok',
      'sluice.remaining': 1,
      'sluice.policies': ['reply'],
    });
    expect(events[2]?.attributes?.['sluice.retry_after_ms']).toBeGreaterThan(0);
    expect(finished.map((span) => span.attributes['sluice.refused_by'])).toEqual([
      undefined,
      undefined,
      'reply',
    ]);
  });

  it('records nothing with openTelemetry: false', async () => {
    const before = await value('sluice.decisions', {
      'sluice.policy': 'reply',
      'sluice.outcome': 'allowed',
    });
    const { url } = await start(
      adapter,
      tracedApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('otel'),
        openTelemetry: false,
      }),
    );
    expect((await fetch(`${url}/reply`, { headers: { 'x-user': 'neville' } })).status).toBe(200);
    expect(
      await value('sluice.decisions', { 'sluice.policy': 'reply', 'sluice.outcome': 'allowed' }),
    ).toBe(before);
  });
});
