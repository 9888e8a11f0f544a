import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { CRAWLER_LIMIT, PEOPLE_LIMIT, userAgentApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

interface Seen {
  status: number;
  policy: string | undefined;
  rateLimitPolicy: string | undefined;
}

/**
 * GETs `url` in a row with exactly the User-Agent given, or none at all (node:http, because
 * fetch adds its own User-Agent).
 */
async function getTimes(url: string, times: number, userAgent?: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (let i = 0; i < times; i++) {
    const headers = userAgent === undefined ? {} : { 'user-agent': userAgent };
    seen.push(
      await new Promise<Seen>((resolve, reject) => {
        const req = request(url, { headers }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            const parsed: unknown = res.statusCode === 429 ? JSON.parse(body) : undefined;
            resolve({
              status: res.statusCode ?? 0,
              policy: (parsed as { policy?: string } | undefined)?.policy,
              rateLimitPolicy: res.headers['ratelimit-policy'] as string | undefined,
            });
          });
        });
        req.on('error', reject).end();
      }),
    );
  }
  return seen;
}

const statuses = (seen: Seen[]) => seen.map((each) => each.status);
const accepted = (count: number) => Array<number>(count).fill(200);

describe.each(ADAPTERS)('policies matched by User-Agent on %s', (adapter) => {
  async function start(): Promise<string> {
    const options = { redis: connectRedis(), prefix: uniquePrefix('ua') };
    const app = await startApp(adapter, userAgentApp(options));
    return `${app.url}/news`;
  }

  it.each([
    'Googlebot/2.1 (+http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  ])('refuses the crawler %j after the crawler limit', async (userAgent) => {
    const seen = await getTimes(await start(), CRAWLER_LIMIT + 1, userAgent);
    expect(statuses(seen)).toEqual([...accepted(CRAWLER_LIMIT), 429]);
    expect(seen.at(-1)?.policy).toBe('crawler');
    expect(seen[0]?.rateLimitPolicy).toBe(
      `"crawler";q=${CRAWLER_LIMIT};w=60, "people";q=${PEOPLE_LIMIT};w=60`,
    );
  });

  it('refuses a browser only after the people limit', async () => {
    const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const seen = await getTimes(await start(), PEOPLE_LIMIT + 1, browser);
    expect(statuses(seen)).toEqual([...accepted(PEOPLE_LIMIT), 429]);
    expect(seen.at(-1)?.policy).toBe('people');
    expect(seen[0]?.rateLimitPolicy).toBe(`"people";q=${PEOPLE_LIMIT};w=60`);
  });

  it('counts a request without a User-Agent under people only', async () => {
    const seen = await getTimes(await start(), PEOPLE_LIMIT + 1);
    expect(statuses(seen)).toEqual([...accepted(PEOPLE_LIMIT), 429]);
    expect(seen.at(-1)?.policy).toBe('people');
    expect(seen[0]?.rateLimitPolicy).toBe(`"people";q=${PEOPLE_LIMIT};w=60`);
  });
});
