// The packages as a user gets them: `npm pack` of @sluice/nest and @sluice/admin (prepack builds
// them), installed with a plain `npm install` into the apps under fixtures/, each type-checked
// with skipLibCheck: false and run as a process against the run's Redis and a fresh PostgreSQL
// database. docs/packaging.md lists what each fixture stands for.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { closeAll, connectRedis } from '../support/redis.clients.js';
import { withPostgres } from '../support/postgres-server.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { launchChromium } from '../measured/panel/support/browser.js';
import { run, startFixture, type RunningFixture } from './fixture.process.js';
import { compileSnippets, snippetsOf } from './doc-snippets.js';
import { nativeCodeBroughtBy } from './installed.tree.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const INSTALL_TIMEOUT_MS = 240_000;

interface Fixture {
  name: string;
  /** Which tarballs it installs beside what its package.json lists. */
  packages: Array<'nest' | 'admin'>;
  /** What the app's package.json asks for, as the test checks that npm installed it. */
  expect: Record<string, RegExp>;
  /** Nest 11 peers beside the core: @nestjs/event-emitter, a WebSocket gateway, @nestjs/swagger. */
  extras?: boolean;
  /** Its throttled route; default /hits. */
  hits?: string;
  /** Where the admin is, as docs/operations.md says for its setup; default /sluice. */
  admin?: string;
  /** It keeps notes in a table of its own (/notes). */
  notes?: boolean;
  /** It stops with `useProcessExit` (exit 0) and says whether its own data source closed. */
  exitsZero?: boolean;
  /** The package manager that installs it, at its defaults; npm unless said. */
  manager?: 'npm' | 'pnpm' | 'yarn';
  /** Built by SWC after tsc has type-checked it (its tsconfig emits nothing); else by tsc. */
  swc?: boolean;
  /** More of its environment. */
  env?: Record<string, string>;
}

const FIXTURE_LIST: Fixture[] = [
  {
    name: 'cjs-nest11-express',
    packages: ['nest', 'admin'],
    expect: {
      '@nestjs/core': /^11\./,
      typeorm: /^0\.3\./,
      ioredis: /^5\./,
      '@nestjs/event-emitter': /^3\./,
      '@nestjs/websockets': /^11\./,
      '@nestjs/swagger': /^11\./,
    },
    extras: true,
    notes: true,
  },
  {
    name: 'esm-nest12-fastify',
    packages: ['nest', 'admin'],
    expect: { '@nestjs/core': /^12\./, typeorm: /^1\./, ioredis: /^5\./ },
    notes: true,
  },
  {
    // The app's own node-redis client handed to SluiceModule, and no ioredis installed at all.
    name: 'esm-nest12-node-redis',
    packages: ['nest', 'admin'],
    expect: { '@nestjs/core': /^12\./, redis: /^5\./ },
  },
  {
    name: 'cjs-nest11-throttler',
    packages: ['nest'],
    expect: { '@nestjs/core': /^11\./, '@nestjs/throttler': /^6\./, ioredis: /^6\./ },
  },
  {
    // Built like a real public app: a global prefix (with exclude) and URI versioning, helmet,
    // its own Swagger, @nestjs/typeorm 11.0.1, and tests of its own under Jest, node --test and
    // Vitest.
    name: 'cjs-nest11-prefix',
    packages: ['nest', 'admin'],
    expect: {
      '@nestjs/core': /^11\./,
      '@nestjs/typeorm': /^11\.0\.1$/,
      typeorm: /^0\.3\./,
      helmet: /^8\./,
      jest: /^30\./,
      vitest: /^4\./,
    },
    hits: '/api/v1/hits',
    admin: '/api/sluice',
    exitsZero: true,
  },
  {
    // ESM on Express 5, built with SWC, installed by pnpm 10 (which runs no dependency's install
    // script by default), beside the modules Nest teams most often run (docs/packaging.md).
    name: 'esm-nest11-ecosystem',
    packages: ['nest', 'admin'],
    expect: {
      '@nestjs/core': /^11\./,
      'nestjs-cls': /^6\./,
      '@nestjs/bullmq': /^11\./,
      'nestjs-pino': /^4\./,
      '@nestjs/microservices': /^11\./,
    },
    manager: 'pnpm',
    swc: true,
    env: { JWT_SECRET: randomBytes(16).toString('hex') },
  },
];
// yarn 1 installs the smallest app: every manager a team uses is covered once.
FIXTURE_LIST.find((fixture) => fixture.name === 'cjs-nest11-throttler')!.manager = 'yarn';

/** Each manager's install, as its user types it: a version npm can fetch, no flags. */
const INSTALL: Record<NonNullable<Fixture['manager']>, string[]> = {
  npm: ['npm', 'install'],
  pnpm: ['npx', '--yes', 'pnpm@10', 'install'],
  yarn: ['npx', '--yes', 'yarn@1', 'install'],
};

const hitsOf = (fixture: Fixture) => fixture.hits ?? '/hits';
const adminOf = (fixture: Fixture) => fixture.admin ?? '/sluice';

const work = mkdtempSync(join(tmpdir(), 'sluice-packages-'));
const tarballs: Record<'nest' | 'admin', string> = { nest: '', admin: '' };
/** Each fixture's install and compile, started together once the tarballs exist. */
const prepared = new Map<string, Promise<string>>();

beforeAll(async () => {
  const packs = join(work, 'packs');
  mkdirSync(packs);
  await run(
    'npm',
    ['pack', '-w', '@sluice/nest', '-w', '@sluice/admin', '--pack-destination', packs],
    {
      cwd: ROOT,
      timeoutMs: INSTALL_TIMEOUT_MS,
    },
  );
  for (const file of readdirSync(packs)) {
    if (file.startsWith('sluice-nest-')) tarballs.nest = join(packs, file);
    if (file.startsWith('sluice-admin-')) tarballs.admin = join(packs, file);
  }
  for (const fixture of FIXTURE_LIST) prepared.set(fixture.name, prepare(fixture));
  // A failed install is reported by the fixture's own test; none is left unhandled meanwhile.
  for (const install of prepared.values()) install.catch(() => undefined);
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Copies the fixture, adds the tarballs to its dependencies, installs and compiles it. */
async function prepare(fixture: Fixture): Promise<string> {
  const directory = join(work, fixture.name);
  cpSync(join(FIXTURES, fixture.name), directory, { recursive: true });
  const manifestPath = join(directory, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  if (fixture.packages.includes('nest')) {
    manifest.dependencies['@sluice/nest'] = `file:${tarballs.nest}`;
  }
  if (fixture.packages.includes('admin')) {
    manifest.dependencies['@sluice/admin'] = `file:${tarballs.admin}`;
  }
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  // A plain install: npm checks every peer range, as it does for a user; pnpm 10 links strictly
  // and runs no install script; yarn 1 hoists as npm did years ago.
  const [command, ...args] = INSTALL[fixture.manager ?? 'npm'];
  await run(command!, args, { cwd: directory, timeoutMs: INSTALL_TIMEOUT_MS });
  await run(process.execPath, [join(directory, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: directory,
    timeoutMs: 120_000,
  });
  if (fixture.swc === true) {
    await run(
      join(directory, 'node_modules/.bin/swc'),
      ['src', '-d', 'dist', '--strip-leading-paths'],
      { cwd: directory, timeoutMs: 120_000 },
    );
  }
  return directory;
}

function installedVersion(directory: string, name: string): string {
  const manifest = join(directory, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Seven requests to the throttled route: five pass, the rest get 429 with Retry-After. */
async function sevenHits(url: string, path: string) {
  const responses: Response[] = [];
  for (let i = 0; i < 7; i++) {
    const response = await fetch(`${url}${path}`, { method: 'POST' });
    await response.text();
    responses.push(response);
  }
  return responses;
}

/** Each fixture's running app, started by its first test, stopped when the file ends. */
const apps = new Map<string, RunningFixture>();
const databases: TestDatabase[] = [];
const token = randomBytes(24).toString('hex');
const appOf = (fixture: Fixture) => apps.get(fixture.name)!;
/** The environment each fixture was started with. */
const envs = new Map<string, Record<string, string>>();

afterAll(async () => {
  await Promise.all([...apps.values()].map((app) => app.stop()));
  await closeAll();
  await Promise.all(databases.map((database) => database.drop()));
});

describe.each(FIXTURE_LIST)('$name, installed from the packed tarballs', (fixture) => {
  it(
    'installs without peer conflicts, compiles with skipLibCheck off, and starts',
    async () => {
      const directory = await prepared.get(fixture.name)!;
      for (const [name, version] of Object.entries(fixture.expect)) {
        expect(installedVersion(directory, name), name).toMatch(version);
      }
      const env: Record<string, string> = {
        REDIS_URL: inject('redisUrl'),
        SLUICE_PREFIX: `fixture-${randomBytes(4).toString('hex')}`,
        ...fixture.env,
      };
      if (fixture.packages.includes('admin')) {
        const database = await createTestDatabase();
        databases.push(database);
        Object.assign(env, {
          DATABASE_URL: database.url,
          SLUICE_DATABASE_URL: database.url,
          SLUICE_ADMIN_TOKENS: `fixture:admin:${token}`,
        });
      }
      envs.set(fixture.name, env);
      apps.set(fixture.name, await startFixture(directory, env));
    },
    INSTALL_TIMEOUT_MS + 60_000,
  );

  it('admits 5 of 7 requests and refuses the rest with 429 and Retry-After', async () => {
    const responses = await sevenHits(appOf(fixture).url, hitsOf(fixture));
    expect(responses.map((response) => response.status)).toEqual([
      201, 201, 201, 201, 201, 429, 429,
    ]);
    expect(Number(responses[5]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(appOf(fixture).output()).not.toMatch(/Error:|ERROR/);
  });
});

describe.each(FIXTURE_LIST.filter((fixture) => fixture.packages.includes('admin')))(
  '$name with SluiceAdminModule',
  (fixture) => {
    it('serves the panel at its address, with and without the slash, the API only with a token', async () => {
      const url = `${appOf(fixture).url}${adminOf(fixture)}`;
      const bare = await fetch(url, { redirect: 'manual' });
      expect([bare.status, bare.headers.get('location')]).toEqual([301, 'sluice/']);
      const panel = await fetch(`${url}/`);
      expect(panel.status).toBe(200);
      expect(await panel.text()).toContain('<div id="root">');
      expect((await fetch(`${url}/api/policies`)).status).toBe(401);
      const authorized = await fetch(`${url}/api/policies`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(authorized.status).toBe(200);
    });

    it("ships the panel as React's production build, though packed with NODE_ENV=test", () => {
      // Vite takes NODE_ENV from the shell; React's development build redraws the live charts
      // at several times the cost (docs/testing.md, the panel).
      expect(process.env.NODE_ENV).toBe('test');
      const assets = join(work, fixture.name, 'node_modules/@sluice/admin/dist/panel/assets');
      const scripts = readdirSync(assets).filter((file) => file.endsWith('.js'));
      expect(scripts.length).toBeGreaterThan(0);
      const development = scripts.filter((file) =>
        readFileSync(join(assets, file), 'utf8').includes('outdated JSX transform'),
      );
      expect(development).toEqual([]);
    });

    it('exports and diffs the policies with the installed sluice command', async () => {
      const directory = join(work, fixture.name);
      const env = {
        SLUICE_ADMIN_URL: `${appOf(fixture).url}${adminOf(fixture)}`,
        SLUICE_ADMIN_TOKEN: token,
      };
      const options = { cwd: directory, timeoutMs: 60_000, env };
      await run('npx', ['--no-install', 'sluice', 'export', '--out', 'policies.json'], options);
      const file = JSON.parse(readFileSync(join(directory, 'policies.json'), 'utf8')) as {
        $schema: string;
        policies: Record<string, unknown>;
      };
      expect(file.$schema).toBe('./node_modules/@sluice/admin/policy-file.schema.json');
      expect(readFileSync(join(directory, file.$schema), 'utf8')).toContain('Sluice policy file');
      expect(Object.keys(file.policies).length).toBeGreaterThan(0);
      const diff = await run('npx', ['--no-install', 'sluice', 'diff', 'policies.json'], options);
      expect(diff).toContain('No changes');
    });

    it('refuses a bad query or body with a 400 naming the field, on Nest 11 and 12 alike', async () => {
      const url = `${appOf(fixture).url}${adminOf(fixture)}`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const query = await fetch(`${url}/api/penalties?limit=abc`, { headers });
      expect(query.status).toBe(400);
      expect(((await query.json()) as { message: string }).message).toContain('limit');
      const body = await fetch(`${url}/api/blocked`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ policy: 'fixture', identifier: 'x', durationMs: 'soon' }),
      });
      expect(body.status).toBe(400);
      expect(((await body.json()) as { message: string }).message).toContain('durationMs');
    });

    it('records the penalty of the refused requests in the penalties table', async () => {
      const deadline = Date.now() + 15_000;
      let rows: unknown[] = [];
      while (rows.length === 0 && Date.now() < deadline) {
        const base = `${appOf(fixture).url}${adminOf(fixture)}`;
        const response = await fetch(`${base}/api/penalties?policy=fixture`, {
          headers: { authorization: `Bearer ${token}` },
        });
        rows = ((await response.json()) as { penalties: unknown[] }).penalties;
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(rows).toContainEqual(
        expect.objectContaining({ policy: 'fixture', keyKind: 'ip', source: 'auto', offence: 1 }),
      );
    });
  },
);

describe('esm-nest12-node-redis, on node-redis alone', () => {
  it('has no ioredis installed: every decision, the bus and the stream went through node-redis', () => {
    const directory = join(work, 'esm-nest12-node-redis');
    expect(existsSync(join(directory, 'node_modules/redis'))).toBe(true);
    expect(existsSync(join(directory, 'node_modules/ioredis'))).toBe(false);
  });
});

describe.each(FIXTURE_LIST.filter((fixture) => fixture.notes === true))(
  '$name beside its own TypeORM entity',
  (fixture) => {
    it("keeps the app's own TypeORM connection and table working", async () => {
      const { url } = appOf(fixture);
      const created = await fetch(`${url}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'still mine' }),
      });
      expect(created.status).toBe(201);
      const notes = (await (await fetch(`${url}/notes`)).json()) as Array<{ text: string }>;
      expect(notes.map((note) => note.text)).toEqual(['still mine']);
    });
  },
);

describe.each(FIXTURE_LIST.filter((fixture) => fixture.extras === true))(
  '$name with the optional Nest 11 peers',
  (fixture) => {
    it("hears the block on the app's own @nestjs/event-emitter bus", async () => {
      const response = await fetch(`${appOf(fixture).url}/blocks-heard`);
      expect(await response.json()).toEqual([{ policy: 'fixture', identifier: '127.0.0.1' }]);
    });

    it('limits a WebSocket handler: the third ping in a minute gets no pong', async () => {
      const socket = new WebSocket(`${appOf(fixture).url.replace(/^http/, 'ws')}/ws`);
      await once(socket, 'open');
      const replies: string[] = [];
      socket.on('message', (data: Buffer) =>
        replies.push((JSON.parse(data.toString()) as { event: string }).event),
      );
      // Nest 11's ws adapter sends a guard's refusal nowhere; the echo, decided after the three
      // pings, marks when the third one has been decided.
      for (const event of ['ping', 'ping', 'ping', 'echo']) {
        socket.send(JSON.stringify({ event, data: null }));
      }
      const deadline = Date.now() + 5_000;
      while (!replies.includes('echo') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      socket.close();
      expect(replies).toEqual(['pong', 'pong', 'echo']);
    });

    it('serves the admin OpenAPI description through @nestjs/swagger 11', async () => {
      const response = await fetch(`${appOf(fixture).url}/sluice/api/docs`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const document = (await response.json()) as { openapi?: string };
      expect(document.openapi).toMatch(/^3\./);
    });
  },
);

describe.each(FIXTURE_LIST.filter((fixture) => fixture.name === 'cjs-nest11-prefix'))(
  "$name: Sluice in a real app's setup",
  (fixture) => {
    const directory = () => join(work, fixture.name);

    it("runs the app's own tests of Sluice and its admin under plain Jest, node --test and Vitest", async () => {
      const env = envs.get(fixture.name)!;
      const options = { cwd: directory(), timeoutMs: 120_000, env };
      // Plain Jest: CommonJS, no --experimental-vm-modules.
      await run(process.execPath, ['node_modules/jest/bin/jest.js', '--ci'], options);
      await run(process.execPath, ['--test', 'node-test/'], options);
      await run(
        process.execPath,
        ['node_modules/vitest/vitest.mjs', 'run', '--dir', 'vitest'],
        options,
      );
      // Each run kept the admin's tables in the schema it named, beside the app's in public.
      const schemas = await withPostgres(env.SLUICE_DATABASE_URL!, async (client) =>
        (
          await client.query<{ table_schema: string }>(
            `SELECT table_schema FROM information_schema.tables WHERE table_name = 'sluice_policy'
             ORDER BY table_schema`,
          )
        ).rows.map((row) => row.table_schema),
      );
      expect(schemas).toEqual(['public', 'sluice_jest', 'sluice_node', 'sluice_vitest']);
    }, 240_000);

    it("leaves the admin out of the app's OpenAPI; the admin's own describes bodies and queries on Nest 11", async () => {
      const { url } = appOf(fixture);
      const own = (await (await fetch(`${url}/docs-json`)).json()) as { paths: object };
      expect(Object.keys(own.paths)).toEqual(['/api/v1/hits', '/api/v1/health']);
      const admin = await fetch(`${url}/api/sluice/api/docs`, {
        headers: { authorization: `Bearer ${token}` },
      });
      type Operation = { requestBody?: unknown; parameters?: Array<{ name: string; in: string }> };
      const paths = ((await admin.json()) as { paths: Record<string, Record<string, Operation>> })
        .paths;
      expect(JSON.stringify(paths['/api/sluice/api/policies/{name}']?.put?.requestBody)).toContain(
        '"algorithm"',
      );
      expect(JSON.stringify(paths['/api/sluice/api/blocked']?.post?.requestBody)).toContain(
        '"durationMs"',
      );
      expect(paths['/api/sluice/api/penalties']?.get?.parameters?.map((p) => p.name)).toContain(
        'limit',
      );
      const headers = Object.values(paths)
        .flatMap((operations) => Object.values(operations))
        .flatMap((operation) => operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'header');
      expect(headers).toEqual([]);
    });

    it('signs in to the panel and lists the policies in Chromium, under the prefix and with `path` set', async () => {
      const browser = await launchChromium();
      const second = await startFixture(directory(), {
        ...envs.get(fixture.name)!,
        SLUICE_ADMIN_PATH: 'ops/sluice',
      });
      try {
        for (const panel of [`${appOf(fixture).url}/api/sluice`, `${second.url}/api/ops/sluice`]) {
          const page = await browser.newPage();
          const failed: string[] = [];
          page.on('response', (response) => {
            // Before signing in, the panel's session check is answered 401: that one is expected.
            const signedOut = response.status() === 401 && response.url().endsWith('/api/session');
            if (response.status() >= 400 && !signedOut) {
              failed.push(`${response.status()} ${response.url()}`);
            }
          });
          await page.goto(panel);
          await page.getByLabel('Name').fill('fixture');
          await page.getByLabel('Token').fill(token);
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.getByTestId('session-name').filter({ hasText: 'fixture' }).waitFor();
          // A deep link, loaded afresh: its assets and API calls resolve from the panel's root.
          await page.goto(`${panel}/policies`);
          await page.getByRole('link', { name: 'fixture', exact: true }).waitFor();
          expect(failed).toEqual([]);
          await page.close();
        }
        const stopped = await second.stop();
        expect(stopped.closingOutput).not.toMatch(/ERROR|Error happened/);
      } finally {
        await second.stop();
        await browser.close();
      }
    }, 90_000);
  },
);

describe.each(FIXTURE_LIST)('$name, as its package manager installed Sluice', (fixture) => {
  it('brings no native code and no install script with @sluice/nest and @sluice/admin', () => {
    const roots = fixture.packages.map((name) => `@sluice/${name}`);
    expect(nativeCodeBroughtBy(join(work, fixture.name), roots)).toEqual([]);
  });
});

describe.each(FIXTURE_LIST.filter((fixture) => fixture.name === 'esm-nest11-ecosystem'))(
  '$name: beside the modules Nest teams run',
  (fixture) => {
    const url = () => appOf(fixture).url;
    const post = (path: string, headers: Record<string, string> = {}, body?: unknown) =>
      fetch(`${url()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body ?? {}),
      });
    const tokenOf = async (user: string) =>
      ((await (await post('/auth/token', {}, { user })).json()) as { token: string }).token;

    it('limits each user behind the JWT guard: 3 each from one address, then 429', async () => {
      const [ann, bob] = [await tokenOf('ann'), await tokenOf('bob')];
      const statuses: number[] = [];
      for (let n = 0; n < 4; n++) {
        statuses.push((await post('/me/hits', { authorization: `Bearer ${ann}` })).status);
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
      const other = await post('/me/hits', { authorization: `Bearer ${bob}` });
      expect([other.status, await other.json()]).toEqual([201, { user: 'bob', total: 1 }]);
      expect((await post('/me/hits')).status).toBe(401);
      // The JWT guard ran first: no request was counted by address for want of a user.
      const routes = await fetch(`${url()}/sluice/api/routes`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const listed = (await routes.json()) as {
        routes: Array<{ path: string; countedByAddress: string[] }>;
      };
      expect(listed.routes.find((route) => route.path === '/me/hits')?.countedByAddress).toEqual(
        [],
      );
    });

    it('runs its worker, listener and timer, and nestjs-cls gives each request an id', async () => {
      const deadline = Date.now() + 10_000;
      let tally = { processed: 0, heard: 0, ticks: 0, request: '' };
      while (Date.now() < deadline) {
        tally = (await (await fetch(`${url()}/background`)).json()) as typeof tally;
        if (tally.processed >= 4 && tally.ticks > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Four hits went through CQRS: each queued for BullMQ and emitted as an event.
      expect(tally).toMatchObject({ processed: 4, heard: 4 });
      expect(tally.ticks).toBeGreaterThan(0);
      expect(tally.request).toMatch(/^\w+$/);
    });

    it('serves health, static files, a cached route, a lazy module and a limited scoped route', async () => {
      expect((await fetch(`${url()}/health`)).status).toBe(200);
      expect(await (await fetch(`${url()}/static/index.html`)).text()).toContain('static files');
      const first: unknown = await (await fetch(`${url()}/cached`)).json();
      const second: unknown = await (await fetch(`${url()}/cached`)).json();
      expect(second).toEqual(first);
      expect(await (await fetch(`${url()}/lazy`)).json()).toEqual({ report: 'all quiet' });
      const scoped: number[] = [];
      for (let n = 0; n < 3; n++) scoped.push((await post('/scoped')).status);
      expect(scoped).toEqual([201, 201, 429]);
      expect(appOf(fixture).output()).not.toMatch(/"level":50|Error:|ERROR/);
    });

    it('answers on its TCP microservice, in a context from the nestjs-cls interceptor', async () => {
      const port = /microservice listening on (\d+)/.exec(appOf(fixture).output())?.[1];
      expect(port).toMatch(/^\d+$/);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      // Nest's TCP transport frames each JSON message as `<length>#<json>`.
      const message = JSON.stringify({ pattern: 'sum', data: [1, 2, 3], id: 'fixture-1' });
      socket.write(`${message.length}#${message}`);
      let received = '';
      const deadline = Date.now() + 5_000;
      while (!received.includes('"isDisposed":true') && Date.now() < deadline) {
        const [chunk] = (await Promise.race([
          once(socket, 'data'),
          new Promise((resolve) => setTimeout(() => resolve([Buffer.alloc(0)]), 250)),
        ])) as [Buffer];
        received += chunk.toString();
      }
      socket.destroy();
      expect(received).toContain('"response":{"sum":6,"inContext":true}');
    });

    it('passes its own controller spec, written as the guide says', async () => {
      const output = await run(process.execPath, ['--test', 'dist/me.controller.test.js'], {
        cwd: join(work, fixture.name),
        timeoutMs: 60_000,
      });
      expect(output).toMatch(/# pass 2\n# fail 0/);
    });
  },
);

describe.each(FIXTURE_LIST)('$name, stopped with SIGTERM', (fixture) => {
  it('closes cleanly within 2 s, an open event stream included, and leaves the instance list', async () => {
    const app = appOf(fixture);
    const stream = new AbortController();
    if (fixture.packages.includes('admin')) {
      const events = await fetch(`${app.url}${adminOf(fixture)}/api/events`, {
        headers: { authorization: `Bearer ${token}` },
        signal: stream.signal,
      });
      expect(events.status).toBe(200);
      // The first event has arrived: the stream is open and held by the server.
      await events.body!.getReader().read();
    }
    const redis = connectRedis();
    const instances = `${envs.get(fixture.name)!.SLUICE_PREFIX}:instances`;
    expect(Object.keys(await redis.hgetall(instances))).toHaveLength(1);
    const stopped = await app.stop();
    stream.abort();
    // Nest's shutdown hooks re-raise the signal once the app has closed, or exit 0 when told
    // to (useProcessExit, the prefix fixture); an error during shutdown exits 1.
    expect([stopped.code, stopped.signal]).toEqual(
      fixture.exitsZero === true
        ? [0, null]
        : stopped.signal === null
          ? [0, null]
          : [null, 'SIGTERM'],
    );
    if (fixture.exitsZero === true) {
      expect(stopped.closingOutput).toContain("exiting 0: the app's data source closed: true");
    }
    expect(stopped.closingOutput).not.toMatch(/ERROR|Error happened/);
    expect(stopped.elapsedMs).toBeLessThan(2_000);
    expect(await redis.hgetall(instances)).toEqual({});
  });
});

describe('the TypeScript blocks of README.md and docs/', () => {
  /** The packed packages unpacked under the repository, whose node_modules has every peer. */
  const directory = join(ROOT, '.tmp', `doc-snippets-${process.pid}`);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  async function unpack(): Promise<void> {
    rmSync(directory, { recursive: true, force: true });
    for (const [name, tarball] of Object.entries(tarballs)) {
      const target = join(directory, 'node_modules/@sluice', name);
      mkdirSync(target, { recursive: true });
      await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], {
        cwd: ROOT,
        timeoutMs: 60_000,
      });
    }
  }

  it('compile against the packed types as written, or say why they cannot', async () => {
    await unpack();
    const files = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ];
    const snippets = snippetsOf(ROOT, files);
    const skipped = snippets.filter((snippet) => snippet.notCompiled !== undefined);
    // A block left out says why, in words; there are few of them.
    for (const snippet of skipped) expect(snippet.notCompiled, snippet.where).toMatch(/\w{4,}/);
    expect(skipped.length).toBeLessThanOrEqual(2);
    // An option the package does not have, as a reader would copy it: the check catches it.
    const wrong = {
      where: 'a wrong block',
      code: 'new SluiceEngine({ store: new MemoryStore(), now: () => Date.now() });',
    };
    const compiled = snippets.filter((snippet) => snippet.notCompiled === undefined);
    expect(compiled.length).toBeGreaterThan(40);
    const errors = compileSnippets(join(directory, 'blocks'), [...compiled, wrong]);
    expect(errors.get(wrong.where)?.join('\n')).toMatch(/'now' does not exist/);
    errors.delete(wrong.where);
    const failed = Object.fromEntries([...errors].filter(([, messages]) => messages.length > 0));
    expect(failed).toEqual({});
  }, 120_000);
});
