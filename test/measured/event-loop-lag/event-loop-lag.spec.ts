// The app holding its own event loop past timeoutMs (a long synchronous task, a GC pause) while a
// decision's reply is on its way must not turn Redis' answer into a timeout, nor open the breaker.
import { SluiceService } from '@sluice/nest/internals';
import { SluiceConnection } from '@sluice/nest/src/connection/sluice.connection.js';
import type { Redis } from 'ioredis';
import { describe, expect, inject, it, vi } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { lagApp } from './app.module.js';

const TIMEOUT_MS = 150;
/** Longer than the timeout, as a task that keeps the loop busy would be. */
const HOLD_MS = 2 * TIMEOUT_MS;
const FAILURE_THRESHOLD = 3;

function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const startApp = closeAppsAfterEach();

describe.each(ADAPTERS)('the event loop held past timeoutMs on %s', (adapter) => {
  it('keeps the replies Redis gave meanwhile: no store error, the breaker stays closed', async () => {
    const options = {
      redis: inject('redisUrl'),
      prefix: uniquePrefix('lag'),
      timeoutMs: TIMEOUT_MS,
      breaker: { failureThreshold: FAILURE_THRESHOLD, cooldownMs: 60_000 },
    };
    const { app, url } = await startApp(adapter, lagApp(options));
    const connection = app.get(SluiceConnection);
    const fcall = vi.spyOn(connection.decisionRedis as Redis, 'fcall');
    const service = app.get(SluiceService);

    const reasons: string[] = [];
    const sentBeforeHold: boolean[] = [];
    for (let i = 0; i < FAILURE_THRESHOLD + 1; i++) {
      const sentBefore = fcall.mock.calls.length;
      const decision = service.consume('checkout', `client-${i}`);
      // The store sends what was asked in this turn once the turn's I/O is done; then the app
      // gets busy before it reads the reply.
      await new Promise((resolve) => setImmediate(resolve));
      sentBeforeHold.push(fcall.mock.calls.length > sentBefore);
      const heldAt = performance.now();
      holdEventLoop(HOLD_MS);
      expect(performance.now() - heldAt).toBeGreaterThan(TIMEOUT_MS);
      reasons.push((await decision).reason);
    }

    expect(reasons).toEqual(Array<string>(FAILURE_THRESHOLD + 1).fill('ok'));
    expect(sentBeforeHold).toEqual(Array<boolean>(FAILURE_THRESHOLD + 1).fill(true));
    expect(connection.breakerState).toBe('closed');
    const answer = await fetch(`${url}/checkout`, { headers: { 'x-client': 'after' } });
    expect(answer.status).toBe(200);
    expect(await service.peek('checkout', 'client-0')).toMatchObject({ allowed: true });
  });
});
