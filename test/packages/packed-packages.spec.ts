// The packages as a user gets them: `npm pack` of @sluice/nest and @sluice/admin (prepack builds
// them), installed with a plain `npm install` into the apps under fixtures/, each type-checked
// with skipLibCheck: false and run as a process against the run's Redis and a fresh PostgreSQL
// database. docs/packaging.md lists what each fixture stands for.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  cpSync,
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
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { run, startFixture, type RunningFixture } from './fixture.process.js';

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
  },
  {
    name: 'esm-nest12-fastify',
    packages: ['nest', 'admin'],
    expect: { '@nestjs/core': /^12\./, typeorm: /^1\./, ioredis: /^5\./ },
  },
  {
    name: 'cjs-nest11-throttler',
    packages: ['nest'],
    expect: { '@nestjs/core': /^11\./, '@nestjs/throttler': /^6\./, ioredis: /^6\./ },
  },
];

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
  // A plain install: npm checks every peer range, as it does for a user.
  await run('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: directory,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  await run(process.execPath, [join(directory, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: directory,
    timeoutMs: 120_000,
  });
  return directory;
}

function installedVersion(directory: string, name: string): string {
  const manifest = join(directory, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Seven requests to the throttled route: five pass, the rest get 429 with Retry-After. */
async function sevenHits(url: string) {
  const responses: Response[] = [];
  for (let i = 0; i < 7; i++) {
    const response = await fetch(`${url}/hits`, { method: 'POST' });
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

afterAll(async () => {
  await Promise.all([...apps.values()].map((app) => app.stop()));
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
      };
      if (fixture.packages.includes('admin')) {
        const database = await createTestDatabase();
        databases.push(database);
        Object.assign(env, {
          DATABASE_URL: database.url,
          SLUICE_ADMIN_TOKENS: `fixture:admin:${token}`,
        });
      }
      apps.set(fixture.name, await startFixture(directory, env));
    },
    INSTALL_TIMEOUT_MS + 60_000,
  );

  it('admits 5 of 7 requests and refuses the rest with 429 and Retry-After', async () => {
    const responses = await sevenHits(appOf(fixture).url);
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
    it('serves the panel at /sluice and /sluice/, the API only with a token', async () => {
      const { url } = appOf(fixture);
      const bare = await fetch(`${url}/sluice`, { redirect: 'manual' });
      expect([bare.status, bare.headers.get('location')]).toEqual([301, '/sluice/']);
      const panel = await fetch(`${url}/sluice/`);
      expect(panel.status).toBe(200);
      expect(await panel.text()).toContain('<div id="root">');
      expect((await fetch(`${url}/sluice/api/policies`)).status).toBe(401);
      const authorized = await fetch(`${url}/sluice/api/policies`, {
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

    it('refuses a bad query or body with a 400 naming the field, on Nest 11 and 12 alike', async () => {
      const { url } = appOf(fixture);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const query = await fetch(`${url}/sluice/api/penalties?limit=abc`, { headers });
      expect(query.status).toBe(400);
      expect(((await query.json()) as { message: string }).message).toContain('limit');
      const body = await fetch(`${url}/sluice/api/blocked`, {
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
        const response = await fetch(`${appOf(fixture).url}/sluice/api/penalties?policy=fixture`, {
          headers: { authorization: `Bearer ${token}` },
        });
        rows = ((await response.json()) as { penalties: unknown[] }).penalties;
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(rows).toContainEqual(
        expect.objectContaining({ policy: 'fixture', keyKind: 'ip', source: 'auto', offence: 1 }),
      );
    });

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
