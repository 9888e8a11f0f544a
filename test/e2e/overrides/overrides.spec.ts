import { afterAll, describe, expect, it } from 'vitest';
import { PolicyBus } from '@sluice/nest/internals';
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

  it('lets in at once an identifier whose block was cached, once an unlimited override is published', async () => {
    const policy = {
      name: 'search',
      algorithm: 'sliding-log',
      limit: 1,
      periodMs: 60_000,
      key: 'header:x-user',
      penalty: { afterViolations: 1, blockMs: 600_000 },
    } as const;
    const app = await startApp(
      adapter,
      overridesApp({ redis: connectRedis(), prefix: uniquePrefix('overrides') }, [policy]),
    );
    const url = `${app.url}/search`;
    // The second request sets off a ten-minute block, which the instance caches.
    expect(statuses(await getAs(url, 'draco', 3))).toEqual([200, 429, 429]);
    await app.app.get(PolicyBus).publish({
      version: 1,
      enforcement: true,
      policies: [{ ...policy, overrides: [{ identifier: 'draco', unlimited: true }] }],
    });
    expect(statuses(await getAs(url, 'draco', 3))).toEqual(accepted(3));
  });

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

  it('grants an override only to the kind of identifier it was written for', async () => {
    const app = await startApp(
      adapter,
      overridesApp({ redis: connectRedis(), prefix: uniquePrefix('overrides') }, [
        {
          name: 'search',
          algorithm: 'sliding-log',
          limit: POLICY_LIMIT,
          periodMs: 60_000,
          key: 'header:x-user',
          // The address a request without X-User is counted by, written for `ip`.
          overrides: [{ identifier: '127.0.0.1', keyKind: 'ip', unlimited: true }],
        },
      ]),
    );
    const url = `${app.url}/search`;
    // Sending the address as the user name gets the policy's limit, not the address's override.
    expect(statuses(await getAs(url, '127.0.0.1', POLICY_LIMIT + 1))).toEqual([
      ...accepted(POLICY_LIMIT),
      429,
    ]);
    // The address itself, counted as `ip` for want of X-User, is never limited.
    const anonymous: number[] = [];
    for (let i = 0; i < POLICY_LIMIT * 3; i++) anonymous.push((await fetch(url)).status);
    expect(anonymous).toEqual(accepted(POLICY_LIMIT * 3));
  });

  it('never limits staff (unlimited)', async () => {
    const seen = await getAs(await start(), 'staff', VIP_LIMIT * 3);
    expect(statuses(seen)).toEqual(accepted(VIP_LIMIT * 3));
    // No quota is advertised to someone the policy does not limit.
    expect(seen.every((each) => each.rateLimitPolicy === null)).toBe(true);
  });
});
