import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyBus } from '../bus/policy.bus.js';
import type { SluiceConnection } from '../connection/sluice.connection.js';
import { summarize, type PolicyDecision } from '../engine/decision.js';
import type { BlockCache } from '../penalty/block.cache.js';
import { SluiceTelemetry } from './sluice.telemetry.js';

/** What the gauges read; nothing else of them is used. */
function telemetry(): SluiceTelemetry {
  return new SluiceTelemetry(
    { version: 7 } as PolicyBus,
    { breakerState: 'closed' } as SluiceConnection,
    { size: 0 } as BlockCache,
    {},
  );
}

const ADMITTED = summarize(
  [
    {
      allowed: true,
      policy: 'search',
      algorithm: 'gcra',
      limit: 10,
      remaining: 9,
      resetMs: 1000,
      retryAfterMs: 0,
      delayMs: 0,
      reason: 'ok',
    } satisfies PolicyDecision,
  ],
  true,
);

afterEach(() => {
  metrics.disable();
});

describe('SluiceTelemetry', () => {
  it('counts nothing, and times no store call, when no SDK registered a meter provider', async () => {
    const reporter = telemetry();
    await reporter.onModuleInit();
    expect(reporter.active).toBe(true);
    expect(reporter.counting).toBe(false);
    expect(() => reporter.decided(ADMITTED, 0.001)).not.toThrow();
  });

  it("counts decisions on the SDK's meter provider when one was registered first", async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    // Exported when the test flushes it, not on an interval.
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const reporter = telemetry();
    await reporter.onModuleInit();
    expect(reporter.counting).toBe(true);
    reporter.decided(ADMITTED, 0.001);
    reporter.decided(ADMITTED, 0.002);
    await reader.forceFlush();
    const all = exporter
      .getMetrics()
      .flatMap((exported) => exported.scopeMetrics.flatMap((scope) => scope.metrics));
    await provider.shutdown();
    const decisions = all.find((each) => each.descriptor.name === 'sluice.decisions');
    const points = (decisions?.dataPoints ?? []) as Array<DataPoint<number>>;
    expect(points.map((point) => [point.attributes, point.value])).toEqual([
      [{ 'sluice.policy': 'search', 'sluice.outcome': 'allowed' }, 2],
    ]);
  });
});
