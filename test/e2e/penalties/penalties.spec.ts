import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PenaltyEventPublisher, SluiceService } from '@sluice/nest/internals';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { startRedisServer, type RedisServer } from '../../support/redis-servers.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { BLOCK_MS, LIMIT, penaltiesApp } from './app.module.js';

// A server of this file's own: MONITOR shows every client's commands, and the shared server
// serves test files running in parallel.
let server: RedisServer;
let monitor: Redis;
const monitored: string[][] = [];
beforeAll(async () => {
  server = await startRedisServer();
  monitor = await connectRedis(server.url).monitor();
  monitor.on('monitor', (_time: string, args: string[]) => monitored.push(args));
});
afterAll(async () => {
  monitor?.disconnect();
  await closeAll();
  await server.stop();
});

const startApp = closeAppsAfterEach();

interface Seen {
  status: number;
  retryAfter: string | null;
  message: string | undefined;
}

async function getAs(url: string, user: string, times: number): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(url, { headers: { 'x-user': user } });
    const text = await response.text();
    const body = response.status === 429 ? (JSON.parse(text) as { message: string }) : undefined;
    seen.push({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      message: body?.message,
    });
  }
  return seen;
}

/**
 * The commands MONITOR shows while `act` runs that a request could have caused: any script or
 * function call, and any command naming `identifier` outside the identifier stats. The instance's
 * background work (the once-a-second stats flush, heartbeats, the policy version poll) is left out:
 * it runs whatever the traffic.
 */
async function requestCommandsDuring(identifier: string, act: () => Promise<void>) {
  const marker = `marker-${Math.random()}`;
  await connectRedis(server.url).echo(marker);
  await act();
  const end = `end-${marker}`;
  const client = connectRedis(server.url);
  await client.echo(end);
  await expect.poll(() => monitored.some((args) => args[1] === end)).toBe(true);
  const from = monitored.findIndex((args) => args[1] === marker);
  const to = monitored.findIndex((args) => args[1] === end);
  return monitored
    .slice(from + 1, to)
    .filter(([name = '', ...rest]) =>
      /^(fcall|fcall_ro|eval|evalsha|eval_ro|evalsha_ro)$/i.test(name)
        ? true
        : rest.some((arg) => arg.includes(identifier)) && !rest[0]?.includes('{ids:'),
    );
}

const statuses = (seen: Seen[]) => seen.map((each) => each.status);

/** Retry-After of a block of `ms` that started at most a second ago. */
function expectRetryAfterOfBlock(seen: Seen | undefined, ms: number): void {
  expect([String(ms / 1000 - 1), String(ms / 1000)]).toContain(seen?.retryAfter);
}

describe.each(ADAPTERS)('penalties on %s', (adapter) => {
  async function start(): Promise<{
    url: string;
    sluice: SluiceService;
    events: PenaltyEventPublisher;
  }> {
    const options = { redis: connectRedis(server.url), prefix: uniquePrefix('penalties') };
    const started = await startApp(adapter, penaltiesApp(options));
    return {
      url: `${started.url}/login`,
      sluice: started.app.get(SluiceService),
      events: started.app.get(PenaltyEventPublisher),
    };
  }

  /** Uses up the limit, then violates it twice: the second violation starts the block. */
  async function getBlocked(url: string, user: string): Promise<Seen[]> {
    return getAs(url, user, LIMIT + 2);
  }

  it('blocks after the second violation, for blockMs', async () => {
    const { url } = await start();
    const seen = [...(await getBlocked(url, 'mallory')), ...(await getAs(url, 'mallory', 1))];
    expect(statuses(seen)).toEqual([200, 200, 429, 429, 429]);
    expect(seen[2]?.message).toMatch(/^Rate limit of policy "login" exceeded/);
    // The second violation starts the block, and says so; later requests meet the block.
    for (const blocked of seen.slice(3)) {
      expect(blocked.message).toMatch(/^Blocked by policy "login"/);
      expectRetryAfterOfBlock(blocked, BLOCK_MS);
    }
    // The block is mallory's alone.
    expect(statuses(await getAs(url, 'alice', 1))).toEqual([200]);
  });

  it('refuses a blocked identifier without a single Redis command', async () => {
    const { url, events } = await start();
    await getBlocked(url, 'mallory');
    // The block's event goes to the penalty stream after the refusal, off the request path.
    await events.flush();
    expect(events.pending).toBe(0);
    let seen: Seen[] = [];
    const commands = await requestCommandsDuring('mallory', async () => {
      seen = await getAs(url, 'mallory', 20);
    });
    expect(new Set(statuses(seen))).toEqual(new Set([429]));
    expect(seen.every((each) => each.message?.startsWith('Blocked'))).toBe(true);
    expect(commands).toEqual([]);
  });

  it('lets an identifier in again at once after SluiceService.unblock', async () => {
    const { url, sluice } = await start();
    await sluice.block('login', 'carol', BLOCK_MS);
    const blocked = await getAs(url, 'carol', 1);
    expect(statuses(blocked)).toEqual([429]);
    expect(blocked[0]?.message).toMatch(/^Blocked/);
    expect(await sluice.unblock('login', 'carol')).toBe(true);
    expect(statuses(await getAs(url, 'carol', LIMIT + 1))).toEqual([200, 200, 429]);
  });

  it('doubles the block for the next offence after an unblock', async () => {
    const { url, sluice } = await start();
    await getBlocked(url, 'mallory');
    await sluice.unblock('login', 'mallory');
    // The window's count is still used up, so two requests are two new violations.
    const seen = await getAs(url, 'mallory', 3);
    expect(statuses(seen)).toEqual([429, 429, 429]);
    expect(seen[0]?.message).toMatch(/exceeded/);
    expect(seen[1]?.message).toMatch(/^Blocked/);
    expectRetryAfterOfBlock(seen[1], 2 * BLOCK_MS);
    expectRetryAfterOfBlock(seen[2], 2 * BLOCK_MS);
  });
});
