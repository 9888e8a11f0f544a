import { afterEach, describe, expect, it } from 'vitest';
import { LocalPenaltyStream } from '../penalty/local-penalty.stream.js';
import { PenaltyEventPublisher } from '../events/penalty-event.publisher.js';
import { startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';
import { IDENTIFIER_STATS, PENALTY_STREAM } from '../config/sluice.tokens.js';
import { IdentifierTally } from '../stats/identifier.tally.js';
import type { IdentifierStatsStore } from '../stats/identifier-stats.store.js';
import { SluiceService } from './sluice.service.js';
import { PolicyRegistry } from '../policy/policy.registry.js';

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

const LIKE = {
  name: 'like',
  algorithm: 'token-bucket',
  limit: 3,
  periodMs: 60_000,
  key: 'header:x-user',
} as const;

async function start() {
  const app = await startMemoryApp([LIKE]);
  started.push(app);
  const stream = app.get<LocalPenaltyStream>(PENALTY_STREAM);
  await stream.ensureGroup('spec');
  const events = async () => {
    await app.get(PenaltyEventPublisher).flush();
    return (await stream.readNew('spec', 'reader', 100, 0)).flatMap(({ event }) =>
      event ? [event] : [],
    );
  };
  return { ...app, sluice: app.get(SluiceService), events };
}

describe('SluiceService on the in-memory store', () => {
  it('consumes, peeks without charging, refunds and resets', async () => {
    const { sluice } = await start();
    expect((await sluice.consume('like', 'ann')).remaining).toBe(2);
    expect((await sluice.peek('like', 'ann')).remaining).toBe(2);
    expect((await sluice.peek('like', 'ann')).remaining).toBe(2);
    await sluice.refund('like', 'ann');
    expect((await sluice.peek('like', 'ann')).remaining).toBe(3);
    await sluice.consume('like', 'ann');
    await sluice.consume('like', 'ann');
    await sluice.reset('like', 'ann');
    expect((await sluice.peek('like', 'ann')).remaining).toBe(3);
  });

  it('refuses once the quota is spent, with the wait until a token comes back', async () => {
    const { sluice } = await start();
    for (let n = 0; n < 3; n++) expect((await sluice.consume('like', 'ann')).allowed).toBe(true);
    const refused = await sluice.consume('like', 'ann');
    expect(refused).toMatchObject({ allowed: false, policy: 'like', reason: 'limit' });
    // One token of three comes back every 20 s.
    expect(refused.retryAfterMs).toBe(20_000);
  });

  it('blocks by hand until the time given, refusing from the cache, and tells the stream', async () => {
    const { sluice, clock, events } = await start();
    const { untilMs } = await sluice.block('like', 'ann', 30_000, {
      actor: 'olga',
      reason: 'spam',
    });
    expect(untilMs).toBe(Math.floor(clock.now() / 1000) + 30_000);
    const refused = await sluice.consume('like', 'ann');
    expect(refused).toMatchObject({ allowed: false, reason: 'cache-block' });
    expect(await events()).toEqual([
      expect.objectContaining({
        type: 'block.manual',
        policy: 'like',
        identifier: 'ann',
        actor: 'olga',
        reason: 'spam',
        expiresAt: untilMs,
      }),
    ]);
    clock.advance(30_000_000);
    expect((await sluice.consume('like', 'ann')).allowed).toBe(true);
  });

  it('decides policies the caller resolved as they were, and counts them under their key', async () => {
    const app = await start();
    const { sluice } = app;
    const resolved = app.get(PolicyRegistry).resolve(['like']);
    // Deleted after the request read it: the request still decides what it resolved.
    app.get(PolicyRegistry).delete('like');
    const decision = await sluice.consume(resolved, 'ann');
    expect(decision).toMatchObject({ allowed: true, policy: 'like', remaining: 2 });
    await expect(sluice.consume('like', 'ann')).rejects.toThrow('Unknown policy: like');
    await app.get(IdentifierTally).flush();
    const counted = await app.get<IdentifierStatsStore>(IDENTIFIER_STATS).read('like');
    expect(counted).toEqual([
      expect.objectContaining({ keyKind: 'header:x-user', identifier: 'ann', passed: 1 }),
    ]);
  });

  it('refuses policies with different keys in one call unless keyKind says which', async () => {
    const app = await startMemoryApp([
      LIKE,
      { name: 'post', algorithm: 'fixed-window', limit: 2, periodMs: 60_000, key: 'user' },
    ]);
    started.push(app);
    const sluice = app.get(SluiceService);
    await expect(sluice.consume(['like', 'post'], 'ann')).rejects.toThrow(
      'policies: like counts by header:x-user, post counts by user; decide them separately or pass keyKind',
    );
    const both = await sluice.consume(['like', 'post'], 'ann', { keyKind: 'user' });
    expect(both.policies.map((part) => [part.policy, part.remaining])).toEqual([
      ['like', 2],
      ['post', 1],
    ]);
  });

  it('lifts a block at once, says whether there was one, and records who lifted it', async () => {
    const { sluice, events } = await start();
    expect(await sluice.unblock('like', 'ann')).toBe(false);
    await sluice.block('like', 'ann', 30_000);
    expect(await sluice.unblock('like', 'ann', { actor: 'olga', reason: 'false positive' })).toBe(
      true,
    );
    expect((await sluice.consume('like', 'ann')).allowed).toBe(true);
    expect((await events()).map(({ type, actor }) => `${type} ${actor}`)).toEqual([
      'block.manual null',
      'block.lifted olga',
    ]);
  });
});
