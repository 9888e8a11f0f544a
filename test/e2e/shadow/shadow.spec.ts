import { afterAll, describe, expect, it } from 'vitest';
import { SluiceService, type HeaderStyle } from '@sluice/nest';
import {
  ADAPTERS,
  closeAppsAfterEach,
  fetchTimes,
  header,
  headersAmong,
  uniquePrefix,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { shadowApp } from './app.module.js';

/** Where fetch connects from: the tests' requests are counted under this address. */
const CLIENT_IP = '127.0.0.1';

const rateHeadersOf = headersAmong([
  'ratelimit-policy',
  'ratelimit',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
]);

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)('a shadow policy on %s', (adapter) => {
  async function start(headers: HeaderStyle) {
    const app = await startApp(
      adapter,
      shadowApp({ redis: connectRedis(), prefix: uniquePrefix('shadow'), headers }),
    );
    const sluice = app.app.get(SluiceService);
    return { url: app.url, watch: () => sluice.peek('watch', CLIENT_IP, { keyKind: 'ip' }) };
  }

  it('never refuses and is not shown, but counts what it would have refused', async () => {
    const { url, watch } = await start('both');
    const [first] = await fetchTimes(`${url}/watched`, 1);
    expect(await watch()).toMatchObject({ reason: 'ok', remaining: 1 });

    const rest = await fetchTimes(`${url}/watched`, 4);
    const responses = [first as Response, ...rest];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(responses.map(rateHeadersOf)).toEqual(Array(5).fill([]));
    // Past its limit of 2 the policy reports the refusal it would have made, and still admits.
    expect(await watch()).toMatchObject({ allowed: true, reason: 'shadow', remaining: 0 });
  });

  it('leaves only the enforced policies in the headers beside it', async () => {
    const { url, watch } = await start('both');
    const responses = await fetchTimes(`${url}/mixed`, 5);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(responses.map(header('ratelimit-policy'))).toEqual(Array(5).fill('"open";q=100;w=60'));
    expect(responses.map(header('ratelimit'))).toEqual(
      [99, 98, 97, 96, 95].map((left) => `"open";r=${left};t=60`),
    );
    expect(responses.map(header('x-ratelimit-limit'))).toEqual(Array(5).fill('100'));
    expect(responses.map(header('x-ratelimit-remaining'))).toEqual(['99', '98', '97', '96', '95']);
    expect(await watch()).toMatchObject({ reason: 'shadow', remaining: 0 });
  });
});
