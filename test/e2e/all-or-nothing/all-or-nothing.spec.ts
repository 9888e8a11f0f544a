import { afterAll, describe, expect, it } from 'vitest';
import { SluiceService } from '@sluice/nest';
import {
  ADAPTERS,
  closeAppsAfterEach,
  fetchTimes,
  header,
  uniquePrefix,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { allOrNothingApp } from './app.module.js';

/** Where fetch connects from: the tests' requests are counted under this address. */
const CLIENT_IP = '127.0.0.1';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)('@Throttle([...]) decides all-or-nothing on %s', (adapter) => {
  async function start(): Promise<{ url: string; sluice: SluiceService }> {
    const app = await startApp(
      adapter,
      allOrNothingApp({ redis: connectRedis(), prefix: uniquePrefix('all-or-nothing') }),
    );
    return { url: app.url, sluice: app.app.get(SluiceService) };
  }

  it('charges neither policy of one identifier when one refuses', async () => {
    const { url, sluice } = await start();
    const responses = await fetchTimes(`${url}/both`, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(responses.map(header('ratelimit-policy'))).toEqual(
      Array(3).fill('"a";q=5;w=60, "b";q=2;w=60'),
    );
    expect(responses.map(header('ratelimit'))).toEqual([
      '"a";r=4;t=60, "b";r=1;t=60',
      '"a";r=3;t=60, "b";r=0;t=60',
      '"a";r=3;t=60, "b";r=0;t=60',
    ]);
    const a = await sluice.peek('a', CLIENT_IP, { keyKind: 'ip' });
    expect(a.remaining).toBe(3);
    const [onlyA] = (await fetchTimes(`${url}/only-a`, 1)) as [Response];
    expect(onlyA.headers.get('ratelimit')).toBe('"a";r=2;t=60');
  });

  it("gives back another identifier's charge when one identifier refuses", async () => {
    const { url, sluice } = await start();
    const perIpRemaining = async () =>
      (await sluice.peek('per-ip', CLIENT_IP, { keyKind: 'ip' })).remaining;

    const keyOne = { headers: { 'x-api-key': 'key-1' } };
    expect((await fetch(`${url}/keyed`, keyOne)).status).toBe(200);
    const refused = await fetch(`${url}/keyed`, keyOne);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { policy: string }).policy).toBe('per-key');
    expect(refused.headers.get('ratelimit-policy')).toBe('"per-ip";q=5;w=60, "per-key";q=1;w=60');
    // The refund is sent after the decision, without holding up the 429.
    await expect.poll(perIpRemaining, { timeout: 2_000, interval: 10 }).toBe(4);

    const [other] = (await fetchTimes(`${url}/keyed`, 1, {
      headers: { 'x-api-key': 'key-2' },
    })) as [Response];
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe('"per-ip";r=3;t=60, "per-key";r=0;t=60');
  });
});
