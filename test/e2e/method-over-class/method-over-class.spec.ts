import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { methodOverClassApp } from './app.module.js';

const running: RunningApp[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()));
});
afterAll(closeAll);

async function getTimes(url: string, times: number): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(url);
    await response.arrayBuffer();
    responses.push(response);
  }
  return responses;
}

describe.each(ADAPTERS)("a method's @Throttle over its class's on %s", (adapter) => {
  async function start(): Promise<string> {
    const app = await startApp(
      adapter,
      methodOverClassApp({ redis: connectRedis(), prefix: uniquePrefix('method-over-class') }),
    );
    running.push(app);
    return app.url;
  }

  it('decides the method by its own policy alone, and names only it', async () => {
    const url = await start();
    const responses = await getTimes(`${url}/articles/export`, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(responses.map((r) => r.headers.get('ratelimit-policy'))).toEqual(
      Array(3).fill('"strict";q=2;w=60'),
    );
    expect(responses.map((r) => r.headers.get('ratelimit'))).toEqual([
      '"strict";r=1;t=60',
      '"strict";r=0;t=60',
      '"strict";r=0;t=60',
    ]);
  });

  it("does not charge the class's policy for the method's requests", async () => {
    const url = await start();
    await getTimes(`${url}/articles/export`, 3);
    const [list] = (await getTimes(`${url}/articles`, 1)) as [Response];
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit-policy')).toBe('"loose";q=100;w=60');
    expect(list.headers.get('ratelimit')).toBe('"loose";r=99;t=60');
  });
});
