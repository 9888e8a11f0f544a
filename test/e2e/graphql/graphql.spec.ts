import type { ExecutionContext, LoggerService } from '@nestjs/common';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAppsAfterEach, header, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { graphqlApp, LIMIT, mercuriusApp } from './app.module.js';

const startApp = closeAppsAfterEach();
afterAll(closeAll);

interface GraphqlAnswer {
  status: number;
  headers: Headers;
  body: {
    data: Record<string, string> | null;
    errors?: Array<{ message: string; path: string[]; extensions: Record<string, unknown> }>;
  };
}

async function queryTimes(url: string, query: string, times: number): Promise<GraphqlAnswer[]> {
  const answers: GraphqlAnswer[] = [];
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    answers.push({
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as GraphqlAnswer['body'],
    });
  }
  return answers;
}

/** The first LIMIT answers carry data; the next is refused with the 429's details. */
function expectLimitedAfter(answers: GraphqlAnswer[], field: string, data: string): void {
  expect(answers.slice(0, LIMIT).map((answer) => answer.body)).toEqual(
    Array(LIMIT).fill({ data: { [field]: data } }),
  );
  const refused = answers[LIMIT];
  expect(refused?.status).toBe(200);
  expect(refused?.body.data).toBeNull();
  expect(refused?.body.errors).toHaveLength(1);
  const [error] = refused?.body.errors ?? [];
  expect(error?.message).toMatch(
    /^Rate limit of policy "graphql" exceeded; retry in (\d+ (s|min|h|d) ?)+$/,
  );
  expect(error?.path).toEqual([field]);
  expectRefusal(error?.extensions, 'graphql');
}

/** What a client branches on: the code, the policy that refused and how long to wait. */
function expectRefusal(extensions: Record<string, unknown> | undefined, policy: string): void {
  expect(extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', policy });
  const { retryAfterMs } = extensions as { retryAfterMs: number };
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(retryAfterMs).toBeLessThanOrEqual(60_000);
}

/** A logger that keeps what each level received, as an app's own logger would see it. */
function recordingLogger(): LoggerService & { lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  const record = (level: string) => (message: unknown) => {
    lines.push([level, String(message instanceof Error ? message.message : message)]);
  };
  return {
    lines,
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
    verbose: record('verbose'),
    fatal: record('fatal'),
  };
}

// Express only: @nestjs/apollo serves Fastify through @as-integrations/fastify, not installed.
describe('GraphQL resolvers under @Throttle on express', () => {
  async function start(withResponse: boolean): Promise<string> {
    const options = { redis: connectRedis(), prefix: uniquePrefix('graphql') };
    const app = await startApp('express', graphqlApp(options, withResponse));
    return app.url;
  }

  it('refuses with extensions.code TOO_MANY_REQUESTS, logging nothing at warn or error', async () => {
    const logger = recordingLogger();
    const options = { redis: connectRedis(), prefix: uniquePrefix('graphql') };
    const app = await startApp('express', graphqlApp(options, true), (nest) =>
      nest.useLogger(logger),
    );
    const answers = await queryTimes(app.url, '{ news }', LIMIT + 2);
    expectLimitedAfter(answers, 'news', 'all quiet');
    expect(answers[LIMIT + 1]?.body.errors?.[0]?.extensions.code).toBe('TOO_MANY_REQUESTS');
    const loud = logger.lines.filter(([level]) => ['error', 'warn', 'fatal'].includes(level));
    expect(loud).toEqual([]);
  });

  it("keeps the code through an app's own formatError, as clients of such apps read it", async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('graphql') };
    // The shape of a formatter common in Nest apps: a code, else INTERNAL_SERVER_ERROR.
    const formatError = (formatted: { message: string; extensions?: Record<string, unknown> }) => ({
      message: formatted.message,
      extensions: {
        errorCode: formatted.extensions?.code ?? 'INTERNAL_SERVER_ERROR',
        retryAfterMs: formatted.extensions?.retryAfterMs,
      },
    });
    const app = await startApp('express', graphqlApp(options, true, false, formatError));
    const answers = await queryTimes(app.url, '{ news }', LIMIT + 1);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers[LIMIT]?.body.errors?.[0]?.extensions).toMatchObject({
      errorCode: 'TOO_MANY_REQUESTS',
      retryAfterMs: expect.any(Number) as number,
    });
  });

  it('limits a resolver and refuses with a GraphQL error carrying the 429', async () => {
    const answers = await queryTimes(await start(true), '{ news }', LIMIT + 1);
    expectLimitedAfter(answers, 'news', 'all quiet');
    expect(answers.map(header('ratelimit-policy'))).toEqual(
      Array(LIMIT + 1).fill(`"graphql";q=${LIMIT};w=60`),
    );
    expect(answers[LIMIT]?.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  describe('with a resolver context holding only the request', () => {
    it('limits through a guard whose getRequestResponse finds no response', async () => {
      const answers = await queryTimes(await start(false), '{ quote }', LIMIT + 1);
      expectLimitedAfter(answers, 'quote', 'less is more');
      expect(answers.map(header('ratelimit'))).toEqual(Array(LIMIT + 1).fill(null));
    });

    it('limits through the default guard too, without a crash', async () => {
      const answers = await queryTimes(await start(false), '{ news }', LIMIT + 1);
      expectLimitedAfter(answers, 'news', 'all quiet');
      expect(answers[LIMIT]?.headers.get('retry-after')).toBeNull();
    });
  });

  it("count: 'failures' counts a resolver's error, though HTTP answers 200, and refunds a success", async () => {
    const url = await start(true);
    const signIn = (password: string) =>
      queryTimes(url, `mutation { signIn(password: ${JSON.stringify(password)}) }`, 1).then(
        ([answer]) => answer!,
      );
    // Successes are given back: many of them never use up the limit of 2.
    for (let i = 0; i < 4; i++)
      expect((await signIn('open sesame')).body.data).toEqual({ signIn: 'welcome' });
    const wrong = [await signIn('guess'), await signIn('guess')];
    expect(wrong.map((answer) => [answer.status, answer.body.errors?.[0]?.message])).toEqual([
      [200, 'wrong password'],
      [200, 'wrong password'],
    ]);
    // Two failures used the limit: even the right password is refused now.
    const refused = await signIn('open sesame');
    expectRefusal(refused.body.errors?.[0]?.extensions, 'gql-sign-in');
  });

  it('holds a concurrency slot while a resolver runs, and frees it when it has answered', async () => {
    const url = await start(true);
    const report = (ms: number) => queryTimes(url, `{ report(ms: ${ms}) }`, 1).then(([a]) => a!);
    const slow = report(400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await report(0);
    expectRefusal(refused.body.errors?.[0]?.extensions, 'gql-report');
    expect((await slow).body.data).toEqual({ report: 'after 400 ms' });
    // The release is one more call after the answer: allow it a moment.
    let next = await report(0);
    for (let tries = 0; tries < 20 && next.body.data === null; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      next = await report(0);
    }
    expect(next.body.data).toEqual({ report: 'after 0 ms' });
  });

  it("charges a query's cost computed before it runs: here, the fields it selects", async () => {
    const options = {
      redis: connectRedis(),
      prefix: uniquePrefix('graphql-cost'),
      // A stand-in for a complexity estimator: one point per field selected under the root.
      costOf: (_request: unknown, context: ExecutionContext) => {
        if (context.getType<string>() !== 'graphql') return undefined;
        const info = context.getArgByIndex<{
          fieldNodes: Array<{ selectionSet?: { selections: unknown[] } }>;
        }>(3);
        return info.fieldNodes[0]?.selectionSet?.selections.length;
      },
    };
    const { url } = await startApp('express', graphqlApp(options, true));
    const three = await queryTimes(url, '{ catalog { a b c } }', 3);
    expect(three.map((answer) => answer.body.data)).toEqual([
      { catalog: { a: 'a', b: 'b', c: 'c' } },
      { catalog: { a: 'a', b: 'b', c: 'c' } },
      { catalog: { a: 'a', b: 'b', c: 'c' } },
    ]);
    // 9 of 10 points used: a 2-point query is refused, a 1-point one fits.
    const [two] = await queryTimes(url, '{ catalog { a b } }', 1);
    expectRefusal(two?.body.errors?.[0]?.extensions, 'gql-points');
    const [one] = await queryTimes(url, '{ catalog { d } }', 1);
    expect(one?.body.data).toEqual({ catalog: { d: 'd' } });
  });

  it('decides a request once when the guard is global and the resolver names it too', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('graphql') };
    const app = await startApp('express', graphqlApp(options, true, true));
    const answers = await queryTimes(app.url, '{ weather }', LIMIT + 1);
    expect(answers.map((answer) => answer.body.data?.weather ?? 'refused')).toEqual([
      ...Array<string>(LIMIT).fill('fair'),
      'refused',
    ]);
  });
});

describe('GraphQL resolvers under @Throttle on Mercurius (fastify)', () => {
  it('refuses with the same extensions, sets the headers on the reply, and logs no error', async () => {
    const logger = recordingLogger();
    const options = { redis: connectRedis(), prefix: uniquePrefix('mercurius') };
    const app = await startApp('fastify', mercuriusApp(options), (nest) => nest.useLogger(logger));
    const answers = await queryTimes(app.url, '{ news }', LIMIT + 1);
    expectLimitedAfter(answers, 'news', 'all quiet');
    expect(answers.map(header('ratelimit-policy'))).toEqual(
      Array(LIMIT + 1).fill(`"graphql";q=${LIMIT};w=60`),
    );
    expect(answers[LIMIT]?.headers.get('retry-after')).toMatch(/^\d+$/);
    const loud = logger.lines.filter(([level]) => ['error', 'warn', 'fatal'].includes(level));
    expect(loud).toEqual([]);
  });

  it('counts each client by its address, read from the request in the context', async () => {
    const options = { redis: connectRedis(), prefix: uniquePrefix('mercurius') };
    const app = await startApp('fastify', mercuriusApp(options));
    const [first] = await queryTimes(app.url, '{ report(ms: 0) }', 1);
    expect(first?.body.data).toEqual({ report: 'after 0 ms' });
    const slow = queryTimes(app.url, '{ report(ms: 400) }', 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [refused] = await queryTimes(app.url, '{ report(ms: 0) }', 1);
    expectRefusal(refused?.body.errors?.[0]?.extensions, 'gql-report');
    expect((await slow)[0]?.body.data).toEqual({ report: 'after 400 ms' });
  });
});
