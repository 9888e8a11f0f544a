// Hostile and careless clients get a sane 4xx, never a 500; a bad environment stops the start.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeAll, connectRedis } from '../support/redis.clients.js';
import {
  ensureDemoBuilt,
  runDemoUntilExit,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoEnv,
  type DemoProcess,
} from './support/demo-process.js';
import { demoPolicies, send, sendRaw, type RequestOptions } from './support/http.js';

/** A raw GET with the given header lines (each "Name: value", as bytes), closing after. */
function rawGet(path: string, headerLines: Array<string | Buffer>): Buffer {
  const lines: Buffer[] = [Buffer.from(`GET ${path} HTTP/1.1\r\nConnection: close\r\n`, 'latin1')];
  for (const line of headerLines) {
    lines.push(typeof line === 'string' ? Buffer.from(line, 'utf8') : line, Buffer.from('\r\n'));
  }
  lines.push(Buffer.from('\r\n'));
  return Buffer.concat(lines);
}

const HOST = 'Host: 127.0.0.1';
const xUser = (value: string): string => `X-User: ${value}`;

describe('the demo faced with bad input', () => {
  let demo: DemoProcess;
  /** Trusts a proxy on loopback, so its X-Forwarded-For is believed: the control case. */
  let behindProxy: DemoProcess;

  beforeAll(async () => {
    await ensureDemoBuilt();
    [demo, behindProxy] = await Promise.all([
      startDemo({ REDIS_URL: inject('redisUrl'), SLUICE_PREFIX: uniqueDemoPrefix('bad-input') }),
      startDemo({
        REDIS_URL: inject('redisUrl'),
        SLUICE_PREFIX: uniqueDemoPrefix('bad-input-proxy'),
        TRUST_PROXY: 'loopback',
      }),
    ]);
  });

  afterAll(stopAllDemos);
  afterAll(closeAll);

  describe('X-User', () => {
    it.each([
      ['65 characters', xUser('h'.repeat(65))],
      ['braces', xUser('{Harry}')],
      ['a space', xUser('Harry Potter')],
      ['a path', xUser('../../etc/passwd')],
      ['non-ASCII letters', xUser('Hårry')],
      ['an emoji', xUser('🦉')],
      ['an empty value', 'X-User:'],
      ['two values', `${xUser('Harry')}\r\n${xUser('Ron')}`],
    ])('refuses a name with %s, saying what X-User must be', async (_case, header) => {
      const answer = await sendRaw(demo.port, rawGet('/posts/1', [HOST, header]));

      expect(answer.status).toBe(400);
      expect(answer.text).toContain('X-User header must be 1 to 64 letters, digits');
    });

    it.each([
      ['a control character', Buffer.from('X-User: Har\u0001ry', 'latin1')],
      ['a NUL', Buffer.from('X-User: Harry\u0000', 'latin1')],
      ['a bare carriage return', Buffer.from('X-User: Har\rry', 'latin1')],
    ])('refuses a header with %s', async (_case, header) => {
      // Node's parser answers these itself; the app never sees them.
      const answer = await sendRaw(demo.port, rawGet('/posts/1', [HOST, header]));

      expect(answer.status).toBe(400);
    });

    it('answers 431 to a header of 20 kB', async () => {
      const answer = await sendRaw(
        demo.port,
        rawGet('/posts/1', [HOST, xUser('h'.repeat(20_000))]),
      );

      expect(answer.status).toBe(431);
    });

    it('takes a well-formed name', async () => {
      const answer = await sendRaw(
        demo.port,
        rawGet('/posts/1', [HOST, xUser('Harry.Potter@hogwarts')]),
      );

      expect(answer.status).toBe(200);
    });
  });

  describe('missing headers', () => {
    it('serves the news to a client that sends no User-Agent and no X-User', async () => {
      const answer = await sendRaw(demo.port, rawGet('/news', [HOST]));

      expect(answer.status).toBe(200);
    });

    it('answers 400 to an HTTP/1.1 request without Host', async () => {
      const answer = await sendRaw(demo.port, rawGet('/news', []));

      expect(answer.status).toBe(400);
    });
  });

  describe('X-Forwarded-For', () => {
    const spoofed = { 'x-forwarded-for': '203.0.113.9' };
    const reply = (url: string, headers: Record<string, string> = {}) =>
      send(`${url}/posts/2/replies`, {
        json: { body: 'anonymous, counted by address' },
        headers,
        from: '127.0.0.5',
      });

    async function exhaustReplies(url: string): Promise<void> {
      const { limit } = (await demoPolicies(url)).reply!;
      for (let i = 0; i < limit; i++) expect((await reply(url)).status).toBe(201);
      expect((await reply(url)).status).toBe(429);
    }

    it('gives an anonymous client no new identity without TRUST_PROXY', async () => {
      await exhaustReplies(demo.url);

      const answer = await reply(demo.url, spoofed);

      expect(answer.status).toBe(429);
    });

    it('is believed from a trusted proxy (TRUST_PROXY=loopback)', async () => {
      await exhaustReplies(behindProxy.url);

      const answer = await reply(behindProxy.url, spoofed);

      expect(answer.status).toBe(201);
    });
  });

  describe('request bodies', () => {
    const json = { 'content-type': 'application/json' };
    it.each<{ name: string; path: string; request: RequestOptions; status: number; says: RegExp }>([
      {
        name: 'malformed JSON',
        path: '/posts',
        request: { raw: '{"title":', headers: json },
        status: 400,
        says: /JSON/,
      },
      {
        name: 'JSON null',
        path: '/posts',
        request: { raw: 'null', headers: json },
        status: 400,
        says: /null/,
      },
      {
        name: 'a JSON array',
        path: '/posts',
        request: { json: [] },
        status: 400,
        says: /body must be a JSON object/,
      },
      {
        name: 'plain text',
        path: '/posts',
        request: { raw: 'hi', headers: { 'content-type': 'text/plain' } },
        status: 400,
        says: /body must be a JSON object/,
      },
      {
        name: 'no body at all',
        path: '/posts',
        request: {},
        status: 400,
        says: /body must be a JSON object/,
      },
      {
        name: 'wrong types',
        path: '/posts',
        request: { json: { title: 5, body: ['x'] } },
        status: 400,
        says: /title: must be a string.*body: must be a string/,
      },
      {
        name: 'a title too long',
        path: '/posts',
        request: { json: { title: 't'.repeat(201), body: 'b' } },
        status: 400,
        says: /title: must be a string of 1 to 200/,
      },
      {
        name: 'a blank title',
        path: '/posts',
        request: { json: { title: '   ', body: 'b' } },
        status: 400,
        says: /title: /,
      },
      {
        name: 'an operator object',
        path: '/posts',
        request: { json: { title: { $gt: '' }, body: 'b' } },
        status: 400,
        says: /title: /,
      },
      {
        name: 'a 200 kB body',
        path: '/posts',
        request: { json: { title: 't', body: 'b'.repeat(200_000) } },
        status: 413,
        says: /too large/i,
      },
      {
        name: 'an empty reply',
        path: '/posts/1/replies',
        request: { json: { body: '' } },
        status: 400,
        says: /body: must be a string of 1 to 2000/,
      },
      {
        name: 'a reply to no post',
        path: '/posts/424242/replies',
        request: { json: { body: 'hello?' } },
        status: 404,
        says: /There is no post/,
      },
      {
        name: 'a like of post "abc"',
        path: '/posts/abc/likes',
        request: {},
        status: 404,
        says: /There is no post/,
      },
      {
        name: 'a login with an operator for a username',
        path: '/login',
        request: { json: { username: { $ne: '' }, password: 'x' } },
        status: 400,
        says: /username: /,
      },
      {
        name: 'a login without a password',
        path: '/login',
        request: { json: { username: 'harry' } },
        status: 400,
        says: /password: /,
      },
    ])('answers $name on $path with $status', async ({ name, path, request, status, says }) => {
      const answer = await send(`${demo.url}${path}`, {
        method: 'POST',
        ...request,
        // A user per case, so no limit is what answers.
        headers: { 'x-user': name.replace(/[^a-z0-9]+/gi, '-'), ...request.headers },
      });

      expect(answer.status).toBe(status);
      expect(answer.body.statusCode).toBe(status);
      expect(JSON.stringify(answer.body.message)).toMatch(says);
    });
  });

  it('is still up and answering after all of that', async () => {
    expect((await send(`${demo.url}/health`)).status).toBe(200);
  });
});

describe('the demo started with a bad environment', () => {
  beforeAll(ensureDemoBuilt);

  it.concurrent.for<{ name: string; env: DemoEnv; named: string[] }>([
    { name: 'a port that is not a number', env: { PORT: 'abc' }, named: ['PORT'] },
    { name: 'a port out of range', env: { PORT: '70000' }, named: ['PORT'] },
    {
      name: 'a Redis URL of another scheme',
      env: { REDIS_URL: 'ftp://user:hunter2@example.com' },
      named: ['REDIS_URL'],
    },
    {
      name: 'a Redis URL that is no URL',
      env: { REDIS_URL: 'localhost:6379' },
      named: ['REDIS_URL'],
    },
    {
      name: 'a database URL of another scheme',
      env: { DATABASE_URL: 'mysql://root:hunter2@127.0.0.1/forum' },
      named: ['DATABASE_URL'],
    },
    {
      name: 'admin tokens without a role',
      env: { SLUICE_ADMIN_TOKENS: 'alice:hunter2' },
      named: ['SLUICE_ADMIN_TOKENS'],
    },
    {
      name: 'admin tokens with an unknown role',
      env: { SLUICE_ADMIN_TOKENS: 'alice:root:hunter2hunter2' },
      named: ['SLUICE_ADMIN_TOKENS'],
    },
    {
      name: 'an admin token too short to be one',
      env: { SLUICE_ADMIN_TOKENS: 'alice:admin:hunter2' },
      named: ['SLUICE_ADMIN_TOKENS'],
    },
    {
      name: 'a sync interval of zero',
      env: { SLUICE_SYNC_INTERVAL_MS: '0' },
      named: ['SLUICE_SYNC_INTERVAL_MS'],
    },
    { name: 'a prefix with a space', env: { SLUICE_PREFIX: 'my app' }, named: ['SLUICE_PREFIX'] },
    { name: 'an unknown NODE_ENV', env: { NODE_ENV: 'staging' }, named: ['NODE_ENV'] },
    {
      name: 'metrics neither on nor off',
      env: { SLUICE_METRICS: 'yes' },
      named: ['SLUICE_METRICS'],
    },
    {
      name: 'an unknown store-error mode',
      env: { SLUICE_ON_STORE_ERROR: 'retry' },
      named: ['SLUICE_ON_STORE_ERROR'],
    },
    { name: 'a timeout of zero', env: { SLUICE_TIMEOUT_MS: '0' }, named: ['SLUICE_TIMEOUT_MS'] },
    {
      name: 'the admin neither on nor off',
      env: { SLUICE_ADMIN: 'true' },
      named: ['SLUICE_ADMIN'],
    },
    {
      name: 'the admin on in production without a database',
      env: { NODE_ENV: 'production', SLUICE_ADMIN: 'on' },
      named: ['DATABASE_URL'],
    },
    {
      name: 'a claim idle time under 100 ms',
      env: { SLUICE_PENALTY_CLAIM_IDLE_MS: '5' },
      named: ['SLUICE_PENALTY_CLAIM_IDLE_MS'],
    },
    {
      name: 'several bad values',
      env: { TRUST_PROXY: '10.0.0.0/99', DEMO_LOGIN_BLOCK_MS: '-5' },
      named: ['TRUST_PROXY', 'DEMO_LOGIN_BLOCK_MS'],
    },
    {
      name: 'a maximum block shorter than the first',
      env: { DEMO_LOGIN_BLOCK_MS: '5000', DEMO_LOGIN_MAX_BLOCK_MS: '1000' },
      named: ['DEMO_LOGIN_MAX_BLOCK_MS'],
    },
  ])(
    'refuses to start with $name, naming the variable',
    // As long as a start may take (runDemoUntilExit), and then some.
    { timeout: 70_000 },
    async ({ env, named }, { expect }) => {
      const exit = await runDemoUntilExit(env);

      expect(exit.code).toBe(1);
      for (const name of named) expect(exit.stderr).toMatch(new RegExp(`^  ${name}: `, 'm'));
      expect(exit.stdout).not.toMatch(/listening/);
      expect(exit.stderr).not.toContain('hunter2');
    },
  );

  it('leaves no instance entry when its start fails after Sluice started (the port taken)', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const prefix = uniqueDemoPrefix('failed-start');
    try {
      const exit = await runDemoUntilExit({
        REDIS_URL: inject('redisUrl'),
        SLUICE_PREFIX: prefix,
        HOST: '127.0.0.1',
        PORT: String((taken.address() as AddressInfo).port),
      });
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain('EADDRINUSE');
      expect(await connectRedis().hkeys(`${prefix}:instances`)).toEqual([]);
    } finally {
      taken.close();
    }
  }, 70_000);
});
