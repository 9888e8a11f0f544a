import { afterAll, describe, expect, it } from 'vitest';
import {
  ADAPTERS,
  closeAppsAfterEach,
  fetchTimes,
  header,
  uniquePrefix,
} from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { methodOverClassApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)("a method's @Throttle over its class's on %s", (adapter) => {
  async function start(): Promise<string> {
    const app = await startApp(
      adapter,
      methodOverClassApp({ redis: connectRedis(), prefix: uniquePrefix('method-over-class') }),
    );
    return app.url;
  }

  it('decides the method by its own policy alone, and names only it', async () => {
    const url = await start();
    const responses = await fetchTimes(`${url}/articles/export`, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(responses.map(header('ratelimit-policy'))).toEqual(Array(3).fill('"strict";q=2;w=60'));
    expect(responses.map(header('ratelimit'))).toEqual([
      '"strict";r=1;t=60',
      '"strict";r=0;t=60',
      '"strict";r=0;t=60',
    ]);
  });

  it("does not charge the class's policy for the method's requests", async () => {
    const url = await start();
    await fetchTimes(`${url}/articles/export`, 3);
    const [list] = (await fetchTimes(`${url}/articles`, 1)) as [Response];
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit-policy')).toBe('"loose";q=100;w=60');
    expect(list.headers.get('ratelimit')).toBe('"loose";r=99;t=60');
  });
});
