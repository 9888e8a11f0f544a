import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceEngine } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { closeAll, connectNodeRedis, connectRedis } from '../../support/redis.clients.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';

/**
 * How the store runs its Lua where functions are refused, as on managed services whose ACL
 * forbids FCALL or FUNCTION LOAD: 'auto' moves to EVALSHA without losing or doubling a call,
 * 'function' says why it cannot run, and 'eval' survives SCRIPT FLUSH.
 */

// A server of this file's own: it changes the ACL and flushes scripts.
let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = connectRedis(server.url);
  await admin.call('ACL', 'SETUSER', 'nofunctions', 'on', '>secret', '~*', '&*', '+@all');
  await admin.call('ACL', 'SETUSER', 'nofunctions', '-fcall', '-fcall_ro', '-function');
  await admin.call('ACL', 'SETUSER', 'noload', 'on', '>secret', '~*', '&*', '+@all');
  await admin.call('ACL', 'SETUSER', 'noload', '-function|load');
}, 30_000);
afterAll(async () => {
  await closeAll();
  await server?.stop();
});

const as = (user: string) => connectRedis(server.url, { username: user, password: 'secret' });
let prefixes = 0;

function engineOn(store: RedisStore): SluiceEngine {
  return new SluiceEngine({
    store,
    prefix: `modes-${prefixes++}`,
    policies: [{ name: 'reply', algorithm: 'fixed-window', limit: 3, periodMs: 60_000 }],
  });
}

/** Admitted or refused, for five calls of one identifier: the limit of 3 holds exactly. */
async function fiveReplies(engine: SluiceEngine): Promise<boolean[]> {
  const allowed: boolean[] = [];
  for (let i = 0; i < 5; i++) allowed.push((await engine.consume('reply', 'harry')).allowed);
  return allowed;
}

const EXACT = [true, true, true, false, false];

async function commandCalls(name: string): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

describe("scripting 'auto'", () => {
  it('decides through FCALL where functions run', async () => {
    const store = new RedisStore(as('default'));
    expect(await store.prepare()).toBe('function');
    expect(await fiveReplies(engineOn(store))).toEqual(EXACT);
  });

  it('moves to EVALSHA when the ACL forbids FCALL, at the first call, losing and doubling nothing', async () => {
    const store = new RedisStore(as('nofunctions'));
    const evalshaBefore = await commandCalls('evalsha');
    // No prepare(): the first decision finds FCALL refused (nothing ran) and goes on by EVALSHA.
    expect(await fiveReplies(engineOn(store))).toEqual(EXACT);
    expect(store.scripting).toBe('eval');
    expect((await commandCalls('evalsha')) - evalshaBefore).toBeGreaterThanOrEqual(5);
  });

  it('moves to EVALSHA on a node-redis client too, when the ACL forbids FCALL', async () => {
    const url = new URL(server.url);
    url.username = 'nofunctions';
    url.password = 'secret';
    const store = new RedisStore(await connectNodeRedis(url.toString()));
    const evalshaBefore = await commandCalls('evalsha');
    expect(await fiveReplies(engineOn(store))).toEqual(EXACT);
    expect(store.scripting).toBe('eval');
    expect((await commandCalls('evalsha')) - evalshaBefore).toBeGreaterThanOrEqual(5);
  });

  it('moves to EVALSHA when the ACL forbids FUNCTION LOAD and the library is not there', async () => {
    await admin.function('FLUSH');
    const store = new RedisStore(as('noload'));
    expect(await store.prepare()).toBe('eval');
    expect(await fiveReplies(engineOn(store))).toEqual(EXACT);
  });
});

describe("scripting 'function'", () => {
  it('refuses to run where functions are forbidden, saying why', async () => {
    const store = new RedisStore(as('nofunctions'), { scripting: 'function' });
    await expect(engineOn(store).consume('reply', 'harry')).rejects.toThrow(
      /NOPERM .*'fcall' command/,
    );
    expect(store.scripting).toBe('function');
  });
});

describe("scripting 'eval'", () => {
  it('never sends FCALL, and loads the scripts again after SCRIPT FLUSH', async () => {
    const store = new RedisStore(as('default'), { scripting: 'eval' });
    const fcallBefore = await commandCalls('fcall');
    const engine = engineOn(store);
    expect((await engine.consume('reply', 'ron')).allowed).toBe(true);
    await admin.script('FLUSH');
    // NOSCRIPT means nothing ran: the store loads the scripts and sends the call once more.
    expect((await engine.consume('reply', 'ron')).remaining).toBe(1);
    expect((await engine.consume('reply', 'ron')).remaining).toBe(0);
    expect((await engine.consume('reply', 'ron')).allowed).toBe(false);
    expect((await commandCalls('fcall')) - fcallBefore).toBe(0);
  });
});
