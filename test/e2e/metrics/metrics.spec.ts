import { afterAll, describe, expect, inject, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, fetchTimes, uniquePrefix } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { metricsApp } from './app.module.js';

afterAll(closeAll);

/** The value of one sample line of Prometheus' text format, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(ADAPTERS)('Prometheus metrics on %s', (adapter) => {
  const start = closeAppsAfterEach();
  const app = (metrics: Parameters<typeof metricsApp>[1]) =>
    start(
      adapter,
      metricsApp({ redisUrl: inject('redisUrl'), prefix: uniquePrefix('metrics') }, metrics),
    );

  it('counts decisions by policy and outcome, store time, cache hits, breaker and version', async () => {
    const { url } = await app(true);
    const statuses = (await fetchTimes(`${url}/reply`, 5, { headers: { 'x-user': 'harry' } })).map(
      (response) => response.status,
    );
    expect(statuses).toEqual([200, 200, 429, 429, 429]);

    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sample(text, 'sluice_decisions_total{policy="reply",outcome="allowed"}')).toBe(2);
    // The third request is refused by the limit and starts the block; the others meet the cache.
    expect(sample(text, 'sluice_decisions_total{policy="reply",outcome="rejected"}')).toBe(1);
    expect(sample(text, 'sluice_decisions_total{policy="reply",outcome="cache_block"}')).toBe(2);
    expect(sample(text, 'sluice_block_cache_hits_total')).toBe(2);
    expect(sample(text, 'sluice_store_duration_seconds_count')).toBe(3);
    expect(sample(text, 'sluice_breaker_state')).toBe(0);
    expect(sample(text, 'sluice_policy_version')).toBe(0);
    expect(sample(text, 'sluice_block_cache_size')).toBe(1);
  });

  it('serves them at the path asked for, and not at all unless asked', async () => {
    const elsewhere = await app({ path: 'ops/metrics' });
    expect((await fetch(`${elsewhere.url}/ops/metrics`)).status).toBe(200);
    expect((await fetch(`${elsewhere.url}/metrics`)).status).toBe(404);
    const without = await app(undefined);
    expect((await fetch(`${without.url}/metrics`)).status).toBe(404);
  });

  it('refuses a path that is not one, naming the option', () => {
    const options = { redisUrl: inject('redisUrl'), prefix: uniquePrefix('metrics') };
    expect(() => metricsApp(options, { path: '../x y' })).toThrow(/SluiceModule metrics\.path/);
  });
});
