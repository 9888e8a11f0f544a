import type { INestApplication } from '@nestjs/common';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SluiceService, type SluiceModuleOptions } from '@sluice/nest';
import { AccessLists, PolicyBus } from '@sluice/nest/internals';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { forumApp, HOUR_MS } from './app.module.js';

afterAll(closeAll);

interface Seen {
  status: number;
  filtered: boolean;
  retryAfter: string | null;
  rateLimit: string | null;
  rateLimitPolicy: string | null;
  body: unknown;
}

async function get(url: string, headers: Record<string, string>): Promise<Seen> {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    filtered: response.headers.get('x-filtered') === 'yes',
    retryAfter: response.headers.get('retry-after'),
    rateLimit: response.headers.get('ratelimit'),
    rateLimitPolicy: response.headers.get('ratelimit-policy'),
    body: (await response.json()) as unknown,
  };
}

async function getTimes(url: string, headers: Record<string, string>, times: number) {
  const seen: Seen[] = [];
  for (let i = 0; i < times; i++) seen.push(await get(url, headers));
  return seen;
}

/** The value of one sample of the metrics' text format. */
async function metric(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** What a refusal shows a client, whoever sent it: the app's filter header aside. */
const shown = ({ filtered: _filtered, ...rest }: Seen) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars

describe.each(ADAPTERS)('refusing cached blocks on %s', (adapter) => {
  const startApp = closeAppsAfterEach();
  async function start(
    options: Partial<SluiceModuleOptions> = {},
    configure?: (app: INestApplication) => unknown,
  ) {
    const started = await startApp(
      adapter,
      forumApp({
        redis: connectRedis(inject('redisUrl')),
        prefix: uniquePrefix('early'),
        ...options,
      }),
      configure,
    );
    return { url: started.url, sluice: started.app.get(SluiceService) };
  }

  it('answers a blocked identifier the same 429 every time, and counts every refusal', async () => {
    const { url, sluice } = await start();
    await sluice.block('reply', 'mallory', HOUR_MS);
    const seen = await getTimes(`${url}/reply`, { 'x-user': 'mallory' }, 5);
    expect(seen.map((each) => each.status)).toEqual([429, 429, 429, 429, 429]);
    expect(seen[0]?.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.stringMatching(/^Blocked by policy "reply"; retry in 1 h$/) as unknown,
      policy: 'reply',
      retryAfterMs: expect.any(Number) as unknown,
    });
    expect(seen[0]?.retryAfter).toMatch(/^(3599|3600)$/);
    expect(seen[0]?.rateLimitPolicy).toBe('"reply";q=100;w=3600');
    expect(seen[0]?.rateLimit).toMatch(/^"reply";r=0;t=(3599|3600)$/);
    for (const later of seen.slice(1)) {
      expect(shown(later)).toEqual({
        ...shown(seen[0] as Seen),
        body: { ...(seen[0]?.body as object), retryAfterMs: expect.any(Number) as unknown },
      });
    }
    expect(await metric(url, 'sluice_decisions_total{policy="reply",outcome="cache_block"}')).toBe(
      5,
    );
    // Others pass on the route, and mallory passes where the policy does not apply.
    expect((await get(`${url}/reply`, { 'x-user': 'alice' })).status).toBe(200);
    expect((await get(`${url}/search`, { 'x-user': 'mallory' })).status).toBe(200);
  });

  it('lets the identifier in again at once when the block is lifted', async () => {
    const { url, sluice } = await start();
    await sluice.block('reply', 'mallory', HOUR_MS);
    await getTimes(`${url}/reply`, { 'x-user': 'mallory' }, 3);
    await sluice.unblock('reply', 'mallory');
    expect((await get(`${url}/reply`, { 'x-user': 'mallory' })).status).toBe(200);
  });

  if (adapter === 'fastify') {
    it('refuses before Nest’s pipeline from the second refusal on a route', async () => {
      const { url, sluice } = await start();
      await sluice.block('reply', 'mallory', HOUR_MS);
      const seen = await getTimes(`${url}/reply`, { 'x-user': 'mallory' }, 4);
      // The guard refuses first, through the app's exception filter; then the gate, without it.
      expect(seen.map((each) => each.filtered)).toEqual([true, false, false, false]);
      // Another blocked identifier on the same route meets the gate at once.
      await sluice.block('reply', 'trudy', HOUR_MS);
      expect((await get(`${url}/reply`, { 'x-user': 'trudy' })).filtered).toBe(false);
    });

    it('refuses a denied client before Nest’s pipeline too, counting each refusal once', async () => {
      const started = await startApp(
        adapter,
        forumApp({ redis: connectRedis(inject('redisUrl')), prefix: uniquePrefix('early') }),
      );
      const entry = {
        id: 'deny-mallory',
        list: 'deny',
        kind: 'identifier',
        keyKind: 'header:x-user',
        value: 'mallory',
        prefix: false,
        policies: ['reply'],
        mode: 'enforce',
        reason: 'abuse',
        expiresAt: null,
        createdBy: 'test',
        createdAt: new Date().toISOString(),
      } as const;
      started.app
        .get(PolicyBus)
        .apply({ version: 1, enforcement: true, policies: [], lists: [entry] });
      const seen = await getTimes(`${started.url}/reply`, { 'x-user': 'mallory' }, 4);
      expect(seen.map((each) => [each.status, each.filtered])).toEqual([
        [429, true],
        [429, false],
        [429, false],
        [429, false],
      ]);
      expect(seen[3]?.body).toMatchObject({ message: 'Denied by policy "reply"' });
      expect((await get(`${started.url}/reply`, { 'x-user': 'alice' })).status).toBe(200);
      expect(started.app.get(AccessLists).takeHits()).toEqual(
        new Map([['deny-mallory', { enforced: 4, shadow: 0 }]]),
      );
    });

    it('refuses early only where the policy matches the request', async () => {
      const { url, sluice } = await start();
      await sluice.block('crawlers', 'mallory', HOUR_MS);
      const asBot = { 'x-user': 'mallory', 'user-agent': 'FeedBot/2' };
      const bot = await getTimes(`${url}/feed`, asBot, 3);
      expect(bot.map((each) => [each.status, each.filtered])).toEqual([
        [429, true],
        [429, false],
        [429, false],
      ]);
      const browser = await get(`${url}/feed`, {
        'x-user': 'mallory',
        'user-agent': 'Firefox/140',
      });
      expect(browser.status).toBe(200);
    });

    it('keeps the CORS headers a browser needs to read the refusal', async () => {
      const { url, sluice } = await start({}, (app) => app.enableCors());
      await sluice.block('reply', 'mallory', HOUR_MS);
      const seen: Array<[number, string | null, boolean]> = [];
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${url}/reply`, {
          headers: { 'x-user': 'mallory', origin: 'https://forum.example' },
        });
        await response.arrayBuffer();
        const filtered = response.headers.get('x-filtered') === 'yes';
        seen.push([response.status, response.headers.get('access-control-allow-origin'), filtered]);
      }
      // The guard's refusal first, then the gate's: both readable from another origin.
      expect(seen).toEqual([
        [429, '*', true],
        [429, '*', false],
        [429, '*', false],
      ]);
    });

    it('leaves to the guard what the request alone does not tell, and what is not asked', async () => {
      const { url, sluice } = await start();
      // A user is known only once the session guard has run.
      await sluice.block('profile', 'mallory', HOUR_MS, { keyKind: 'user' });
      const byUser = await getTimes(`${url}/profile`, { 'x-session': 'mallory' }, 3);
      expect(byUser.map((each) => [each.status, each.filtered])).toEqual([
        [429, true],
        [429, true],
        [429, true],
      ]);
      const guardOnly = await start({ refuseBlockedEarly: false });
      await guardOnly.sluice.block('reply', 'mallory', HOUR_MS);
      const seen = await getTimes(`${guardOnly.url}/reply`, { 'x-user': 'mallory' }, 3);
      expect(seen.map((each) => [each.status, each.filtered])).toEqual([
        [429, true],
        [429, true],
        [429, true],
      ]);
    });
  } else {
    it('refuses every blocked request in the guard, through Nest’s pipeline', async () => {
      const { url, sluice } = await start();
      await sluice.block('reply', 'mallory', HOUR_MS);
      const seen = await getTimes(`${url}/reply`, { 'x-user': 'mallory' }, 3);
      expect(seen.map((each) => each.filtered)).toEqual([true, true, true]);
    });
  }

  it('names the option when refuseBlockedEarly is not a boolean', async () => {
    await expect(start({ refuseBlockedEarly: 'yes' as unknown as boolean })).rejects.toThrow(
      /SluiceModule options\.refuseBlockedEarly: must be true or false, got "yes"/,
    );
  });
});
