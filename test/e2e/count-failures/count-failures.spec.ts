import { afterAll, describe, expect, it } from 'vitest';
import { SluiceService } from '@sluice/nest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { countFailuresApp, PASSWORD } from './app.module.js';

/** Where fetch connects from: the tests' requests are counted under this address. */
const CLIENT_IP = '127.0.0.1';
const WRONG = 'hunter2';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

describe.each(ADAPTERS)("count: 'failures' on %s", (adapter) => {
  async function start() {
    const app = await startApp(
      adapter,
      countFailuresApp({ redis: connectRedis(), prefix: uniquePrefix('count-failures') }),
    );
    const sluice = app.app.get(SluiceService);
    return {
      login: async (password: string): Promise<number> => {
        const response = await fetch(`${app.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ password }),
        });
        await response.arrayBuffer();
        return response.status;
      },
      attemptsLeft: async () =>
        (await sluice.peek('login', CLIENT_IP, { keyKind: 'ip' })).remaining,
    };
  }

  /** A success is given back once its response is sent, so wait until it has been. */
  const givenBack = (attemptsLeft: () => Promise<number>, expected: number) =>
    expect.poll(attemptsLeft, { timeout: 2_000, interval: 10 }).toBe(expected);

  it('never uses up the limit with successful logins', async () => {
    const { login, attemptsLeft } = await start();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push(await login(PASSWORD));
      await givenBack(attemptsLeft, 3);
    }
    expect(statuses).toEqual(Array(10).fill(201));
  });

  it('refuses the attempt after three failures, even with the right password', async () => {
    const { login, attemptsLeft } = await start();
    expect([await login(WRONG), await login(WRONG)]).toEqual([401, 401]);
    // A success in between neither counts nor clears the failures before it.
    expect(await login(PASSWORD)).toBe(201);
    await givenBack(attemptsLeft, 1);
    expect(await login(WRONG)).toBe(401);
    expect(await attemptsLeft()).toBe(0);
    expect(await login(PASSWORD)).toBe(429);
  });
});
