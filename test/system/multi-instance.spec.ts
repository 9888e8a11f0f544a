// Three demo processes behind an imaginary load balancer keep one set of limits in one Redis,
// and one forum in one PostgreSQL.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from './support/demo-process.js';
import { countStatuses, demoPolicies, send, type Answer, type DemoPolicy } from './support/http.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const INSTANCES = 3;
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
// Separate source addresses, so each scenario is a client of its own under the `ip` policies.
const CRAWLER_ADDRESS = '127.0.0.2';
const BROWSER_ADDRESS = '127.0.0.3';

describe('three demo instances sharing one Redis', () => {
  let demos: DemoProcess[] = [];
  let policies: Record<string, DemoPolicy>;
  let database: TestDatabase;

  beforeAll(async () => {
    [database] = await Promise.all([createTestDatabase(), ensureDemoBuilt()]);
    const env = {
      REDIS_URL: inject('redisUrl'),
      // The posts are shared; the admin is another file's subject.
      DATABASE_URL: database.url,
      SLUICE_ADMIN: 'off',
      SLUICE_PREFIX: uniqueDemoPrefix('multi'),
      // A late Redis answer must not pass for an admission: refused instead, it shows in the
      // 429's message. A second is far above a loaded machine's slowest decision here.
      SLUICE_ON_STORE_ERROR: 'deny',
      SLUICE_TIMEOUT_MS: '1000',
    };
    demos = await Promise.all(Array.from({ length: INSTANCES }, () => startDemo(env)));
    policies = await demoPolicies(demos[0]!.url);
  });

  afterAll(async () => {
    await stopAllDemos();
    await database?.drop();
  });

  /** Sends the requests at once, the i-th to instance i mod 3. */
  function roundRobin(count: number, path: string, request: Parameters<typeof send>[1]) {
    return Promise.all(
      Array.from({ length: count }, (_, i) => send(`${demos[i % INSTANCES]!.url}${path}`, request)),
    );
  }

  it('lets Harry reply five times a minute in all, whichever instances take his replies', async () => {
    const reply = policies.reply!;
    const answers = await roundRobin(20, '/posts/1/replies', {
      headers: { 'x-user': 'Harry' },
      json: { body: 'Expelliarmus!' },
    });

    const refusals = answers.filter((answer) => answer.status === 429);
    // Every refusal is Redis' decision, so the count of admissions is Redis' count.
    expect(refusals.map((answer) => String(answer.body.message).split(';')[0])).toEqual(
      refusals.map(() => 'Rate limit of policy "reply" exceeded'),
    );
    expect(countStatuses(answers)).toEqual({ 201: reply.limit, 429: 20 - reply.limit });
    for (const refused of refusals) {
      expect(refused.body).toMatchObject({ statusCode: 429, policy: 'reply' });
      const retryAfterMs = Number(refused.body.retryAfterMs);
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(reply.periodMs);
      expect(refused.headers['retry-after']).toBe(String(Math.ceil(retryAfterMs / 1000)));
    }
  });

  it('takes replies through every instance to a post written through one, within the limit', async () => {
    const written = await send(`${demos[0]!.url}/posts`, {
      headers: { 'x-user': 'Ginny' },
      json: { title: 'Tryouts', body: 'Saturday, ten sharp.' },
    });
    expect(written.status).toBe(201);
    const answers = await roundRobin(20, `/posts/${String(written.body.id)}/replies`, {
      headers: { 'x-user': 'Ginny' },
      json: { body: 'Bring your own broom.' },
    });
    const limit = policies.reply!.limit;
    expect(countStatuses(answers)).toEqual({ 201: limit, 429: 20 - limit });
    const read = await send(`${demos[2]!.url}/posts/${String(written.body.id)}`);
    expect(read.status).toBe(200);
    expect((read.body.replies as unknown[]).length).toBe(limit);
    const liked = await send(`${demos[1]!.url}/posts/${String(written.body.id)}/likes`, {
      method: 'POST',
    });
    expect(liked.body, JSON.stringify(liked.body)).toMatchObject({ likes: 1 });
  });

  it("does not hold Ron to Harry's limit", async () => {
    const answer = await send(`${demos[2]!.url}/posts/1/replies`, {
      headers: { 'x-user': 'Ron' },
      json: { body: 'Leave some replies for the rest of us' },
    });

    expect(answer.status).toBe(201);
    expect(answer.headers['ratelimit']).toBe(
      `"reply";r=${policies.reply!.limit - 1};t=${policies.reply!.periodMs / 1000}`,
    );
  });

  it('gives a crawler the crawler limit and a browser the looser news limit, across instances', async () => {
    const crawler = policies.crawler!;
    const news = policies.news!;
    const crawlerBurst = crawler.burst ?? crawler.limit;
    const newsBurst = news.burst ?? news.limit;
    expect(crawlerBurst).toBeLessThan(newsBurst);

    const crawlerStart = Date.now();
    const crawlerAnswers = await roundRobin(3 * crawlerBurst, '/news', {
      headers: { 'user-agent': GOOGLEBOT },
      from: CRAWLER_ADDRESS,
    });
    const crawlerElapsed = Date.now() - crawlerStart;
    const browserStart = Date.now();
    const browserAnswers = await roundRobin(newsBurst + 15, '/news', {
      headers: { 'user-agent': FIREFOX },
      from: BROWSER_ADDRESS,
    });
    const browserElapsed = Date.now() - browserStart;

    // GCRA admits a burst at once, then one more per emission interval (periodMs / limit).
    const admitted = (answers: Answer[]) => answers.filter((answer) => answer.status === 200);
    const regained = (policy: DemoPolicy, elapsed: number) =>
      Math.floor(elapsed / (policy.periodMs / policy.limit));
    expect(admitted(crawlerAnswers).length).toBeGreaterThanOrEqual(crawlerBurst);
    expect(admitted(crawlerAnswers).length).toBeLessThanOrEqual(
      crawlerBurst + regained(crawler, crawlerElapsed),
    );
    expect(admitted(browserAnswers).length).toBeGreaterThanOrEqual(newsBurst);
    expect(admitted(browserAnswers).length).toBeLessThanOrEqual(
      newsBurst + regained(news, browserElapsed),
    );
    expect(countStatuses(crawlerAnswers)[429]).toBeGreaterThan(0);
    expect(countStatuses(browserAnswers)[429]).toBeGreaterThan(0);
    for (const answer of [...crawlerAnswers, ...browserAnswers]) {
      expect([200, 429]).toContain(answer.status);
    }

    const crawlerRefusal = crawlerAnswers.find((answer) => answer.status === 429)!;
    const browserRefusal = browserAnswers.find((answer) => answer.status === 429)!;
    expect(crawlerRefusal.body.policy).toBe('crawler');
    expect(browserRefusal.body.policy).toBe('news');
    // Only a crawler is under the crawler policy; both count against news.
    expect(admitted(crawlerAnswers)[0]!.headers['ratelimit-policy']).toBe(
      `"crawler";q=${crawler.limit};w=${crawler.periodMs / 1000}, "news";q=${news.limit};w=${news.periodMs / 1000}`,
    );
    expect(admitted(browserAnswers)[0]!.headers['ratelimit-policy']).toBe(
      `"news";q=${news.limit};w=${news.periodMs / 1000}`,
    );
  });
});
