import { afterEach, describe, expect, it } from 'vitest';
import { BlockCache } from '../penalty/block.cache.js';
import { POLICY_CHANNEL } from '../config/sluice.tokens.js';
import { startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';
import { PolicyBus } from './policy.bus.js';
import type { PolicyChannel } from './policy.channel.js';

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

const LIKE = { name: 'like', algorithm: 'fixed-window', limit: 3, periodMs: 60_000 } as const;

async function start() {
  const app = await startMemoryApp([LIKE]);
  started.push(app);
  return { ...app, bus: app.get(PolicyBus), channel: app.get<PolicyChannel>(POLICY_CHANNEL) };
}

/** Another instance's admin: stores a snapshot and announces it. */
async function published(channel: PolicyChannel, version: number, policies: unknown[]) {
  await channel.write({ version, enforcement: true, policies });
  await channel.announce({ version, name: null });
}

async function until(condition: () => boolean): Promise<void> {
  await expect.poll(condition, { timeout: 2_000, interval: 5 }).toBe(true);
}

describe('PolicyBus on the in-memory channel', () => {
  it('enforces code defaults at version 0, then applies a newer snapshot when told of it', async () => {
    const { bus, channel, engine } = await start();
    expect(bus.version).toBe(0);
    expect(engine.policies.get('like')?.limit).toBe(3);

    await published(channel, 4, [{ ...LIKE, limit: 10 }]);
    await until(() => bus.version === 4);
    expect(engine.policies.get('like')?.limit).toBe(10);
  });

  it('ignores a snapshot older than the one applied', async () => {
    const { bus, engine } = await start();
    expect(bus.apply({ version: 5, enforcement: true, policies: [{ ...LIKE, limit: 7 }] })).toBe(
      true,
    );
    expect(bus.apply({ version: 4, enforcement: true, policies: [{ ...LIKE, limit: 1 }] })).toBe(
      false,
    );
    expect([bus.version, engine.policies.get('like')?.limit]).toEqual([5, 7]);
  });

  it('keeps the last good definition of a policy it cannot load, applies the rest, and says why', async () => {
    const { bus, engine } = await start();
    bus.apply({ version: 2, enforcement: true, policies: [{ ...LIKE, limit: 7 }] });
    const applied = bus.apply({
      version: 3,
      enforcement: false,
      policies: [
        { ...LIKE, limit: 9, name: 'fine' },
        { ...LIKE, limit: -1 },
        { ...LIKE, name: 'later', quota: { calendar: 'month' } },
      ],
    });
    expect(applied).toBe(true);
    expect(bus.version).toBe(3);
    expect(engine.policies.get('like')?.limit).toBe(7);
    expect(engine.policies.get('fine')?.limit).toBe(9);
    expect(engine.policies.get('later')).toBeUndefined();
    expect(engine.policies.enforcing).toBe(false);
    expect(bus.lastError).toMatch(
      /^snapshot v3 applied without 2 policies this instance cannot load, whose last good definition stays: policy "like": .*limit.*; policy "later": .*quota/,
    );

    bus.apply({ version: 4, enforcement: true, policies: [{ ...LIKE, limit: 8 }] });
    expect([engine.policies.get('like')?.limit, bus.lastError]).toEqual([8, null]);
  });

  it('keeps a code default the snapshot does not name', async () => {
    const { bus, engine } = await start();
    bus.apply({ version: 1, enforcement: true, policies: [{ ...LIKE, name: 'other' }] });
    expect(engine.policies.get('like')?.limit).toBe(3);
    expect(engine.policies.get('other')?.limit).toBe(3);
  });

  it('turns enforcement off and on with the snapshot', async () => {
    const { bus } = await start();
    bus.apply({ version: 1, enforcement: false, policies: [] });
    expect(bus.enforcing).toBe(false);
    bus.apply({ version: 2, enforcement: true, policies: [] });
    expect(bus.enforcing).toBe(true);
  });

  it('forgets a cached block when any instance lifts it', async () => {
    const app = await start();
    const { channel, clock } = app;
    const blocks = app.get(BlockCache);
    const nowMs = Math.floor(clock.now() / 1000);
    blocks.remember('like', 'ip', '203.0.113.9', {
      untilMs: nowMs + 60_000,
      retryAtMs: nowMs + 60_000,
      offence: 1,
    });
    expect(blocks.find('like', 'ip', '203.0.113.9', nowMs)).toBeDefined();
    await channel.announceUnblock({ policy: 'like', keyKind: 'ip', identifier: '203.0.113.9' });
    expect(blocks.find('like', 'ip', '203.0.113.9', nowMs)).toBeUndefined();
  });
});
