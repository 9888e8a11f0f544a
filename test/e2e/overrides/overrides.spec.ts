import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { overridesApp, POLICY_LIMIT, VIP_LIMIT } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

interface Seen {
  status: number;
  rateLimitPolicy: string | null;
  body: unknown;
}

/** GETs `url` `times` times in a row as the user named by X-User. */
async function getAs(url: string, user: string, times: number): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(url, { headers: { 'x-user': user } });
    const text = await response.text();
    seen.push({
      status: response.status,
      rateLimitPolicy: response.headers.get('ratelimit-policy'),
      body: response.status === 429 ? JSON.parse(text) : text,
    });
  }
  return seen;
}

const statuses = (seen: Seen[]) => seen.map((each) => each.status);
const accepted = (count: number) => Array<number>(count).fill(200);

describe.each(ADAPTERS)('per-identifier overrides on %s', (adapter) => {
  async function start(): Promise<string> {
    const options = { redis: connectRedis(), prefix: uniquePrefix('overrides') };
    const app = await startApp(adapter, overridesApp(options));
    return `${app.url}/search`;
  }

  it('gives an identifier without an override the policy limit', async () => {
    const seen = await getAs(await start(), 'someone', POLICY_LIMIT + 1);
    expect(statuses(seen)).toEqual([...accepted(POLICY_LIMIT), 429]);
    expect(seen[0]?.rateLimitPolicy).toBe(`"search";q=${POLICY_LIMIT};w=60`);
  });

  it('gives vip its own, higher limit, announced in RateLimit-Policy', async () => {
    const url = await start();
    const seen = await getAs(url, 'vip', VIP_LIMIT + 1);
    expect(statuses(seen)).toEqual([...accepted(VIP_LIMIT), 429]);
    expect(seen[0]?.rateLimitPolicy).toBe(`"search";q=${VIP_LIMIT};w=60`);
    // vip's traffic is its own: another identifier still has the whole policy limit.
    expect(statuses(await getAs(url, 'someone', POLICY_LIMIT + 1))).toEqual([
      ...accepted(POLICY_LIMIT),
      429,
    ]);
  });

  it('refuses banned (limit 0) from the first request', async () => {
    const seen = await getAs(await start(), 'banned', 2);
    expect(statuses(seen)).toEqual([429, 429]);
    expect(seen[0]?.body).toMatchObject({ statusCode: 429, policy: 'search' });
    expect((seen[0]?.body as { message: string }).message).toMatch(/^Denied/);
  });

  it('never limits staff (unlimited)', async () => {
    const seen = await getAs(await start(), 'staff', VIP_LIMIT * 3);
    expect(statuses(seen)).toEqual(accepted(VIP_LIMIT * 3));
    // No quota is advertised to someone the policy does not limit.
    expect(seen.every((each) => each.rateLimitPolicy === null)).toBe(true);
  });
});
