// Every admin route needs `Authorization: Bearer <token>` or the panel's session cookie, with
// viewer < operator < admin (docs/security.md, docs/operations.md credentials and roles). The routes are read from the running app's router, so
// a route added without its line in GRANTS fails this test instead of going unchecked.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { openAdminDatabase } from '../../../apps/demo/src/admin-database.js';
import {
  openForumDatabase,
  type ForumDatabase,
} from '../../../apps/demo/src/posts/forum.database.js';
import { loadConfig } from '../../../apps/demo/src/config.js';
import { startApp, type RunningApp } from '../../support/nest-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { ADMIN_API, uniqueDemoPrefix } from '../support/demo-process.js';
import { send } from '../support/http.js';
import {
  ADMIN_TOKENS,
  ADMINS,
  adminCall,
  type AdminName,
  type AdminRole,
} from './support/admin-demo.js';

type Grant = AdminRole | 'public';

/** Who may call each admin route: the role table of docs/operations.md. */
const GRANTS: Record<string, Grant> = {
  'POST /session': 'public',
  'GET /session': 'viewer',
  'DELETE /session': 'viewer',
  'GET /policies': 'viewer',
  'GET /policies/:name': 'viewer',
  // Operators may change overrides and mode only; the service refuses other fields.
  'PUT /policies/:name': 'operator',
  'DELETE /policies/:name': 'admin',
  'GET /policies/:name/revisions': 'viewer',
  'POST /policies/:name/revisions/:v/restore': 'admin',
  // Proposing, discarding and promoting a candidate: the service refuses changes beyond the
  // operator's remit, as for PUT.
  'POST /policies/:name/candidate': 'operator',
  'GET /policies/:name/candidate': 'viewer',
  'DELETE /policies/:name/candidate': 'operator',
  'POST /policies/:name/candidate/promote': 'operator',
  'GET /enforcement': 'viewer',
  'PUT /enforcement': 'admin',
  'GET /routes': 'viewer',
  'GET /instances': 'viewer',
  'GET /inspect/:policy/:identifier': 'viewer',
  'DELETE /counters/:policy/:identifier': 'operator',
  'GET /audit': 'viewer',
  'GET /blocked': 'viewer',
  'POST /blocked': 'operator',
  'DELETE /blocked/:policy/:identifier': 'operator',
  'GET /lists': 'viewer',
  'POST /lists': 'operator',
  'PATCH /lists/:id': 'operator',
  'DELETE /lists/:id': 'operator',
  'GET /policy-file': 'viewer',
  'POST /policy-file/diff': 'viewer',
  // An apply may delete policies and replace every rule: the admin's call.
  'POST /policy-file/apply': 'admin',
  'GET /penalties': 'viewer',
  'GET /identifiers': 'viewer',
  'GET /policies/:name/profile': 'viewer',
  'GET /policies/:name/recommendation': 'viewer',
  // A replay reads and computes; it changes nothing.
  'POST /policies/:name/replay': 'viewer',
  'GET /quotas/:policy/:identifier': 'viewer',
  'POST /quotas/:policy/:identifier/grant': 'operator',
  'GET /plans/:identifier': 'viewer',
  'PUT /plans/:identifier': 'operator',
  'DELETE /plans/:identifier': 'operator',
  'GET /docs': 'viewer',
  'GET /stats': 'viewer',
  'GET /events': 'viewer',
};

/** Routes whose answer never ends (Server-Sent Events): only their status is read. */
const STREAMS = new Set(['GET /events']);

/** The status of a stream opened as `who`, closed as soon as its headers arrive. */
async function streamStatus(url: string, who: AdminName): Promise<number> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${ADMINS[who].token}` },
    signal: abort.signal,
  });
  abort.abort();
  return response.status;
}

const ROLES: AdminRole[] = ['viewer', 'operator', 'admin'];
const PERSON: Record<AdminRole, AdminName> = { viewer: 'victor', operator: 'olga', admin: 'alice' };
const PARAMETERS: Record<string, string> = {
  name: 'reply',
  policy: 'reply',
  identifier: 'sweep-user',
  v: '1',
};

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** `METHOD /path` of every route under the admin API, as the Express router holds them. */
function adminRoutes(running: RunningApp): string[] {
  const express = running.app.getHttpAdapter().getInstance() as {
    router: { stack: ExpressLayer[] };
  };
  return express.router.stack
    .flatMap((layer) => (layer.route ? [layer.route] : []))
    .filter((route) => route.path.startsWith(`${ADMIN_API}/`))
    .flatMap((route) =>
      Object.keys(route.methods)
        .filter((method) => route.methods[method])
        .map((method) => `${method.toUpperCase()} ${route.path.slice(ADMIN_API.length)}`),
    );
}

/** The route with every `:parameter` filled in. */
function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => PARAMETERS[name] ?? 'x');
}

/** An empty JSON body for a write, none for a read. */
function emptyBody(method: string): { json?: object } {
  return method === 'GET' ? {} : { json: {} };
}

function below(grant: AdminRole): AdminRole[] {
  return ROLES.slice(0, ROLES.indexOf(grant));
}

describe('the admin API refuses whoever lacks the role a route needs', () => {
  let database: TestDatabase;
  let running: RunningApp;
  let routes: string[];
  let forum: ForumDatabase | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({
      REDIS_URL: inject('redisUrl'),
      DATABASE_URL: database.url,
      SLUICE_ADMIN_TOKENS: ADMIN_TOKENS,
      SLUICE_PREFIX: uniqueDemoPrefix('auth-sweep'),
      NODE_ENV: 'test',
    });
    // The forum's posts stay in memory: this file is about the admin's routes.
    forum = await openForumDatabase({ ...config, databaseUrl: undefined, admin: false });
    running = await startApp('express', {
      imports: [AppModule.forConfig(config, await openAdminDatabase(config), forum)],
    });
    routes = adminRoutes(running);
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    await forum?.stop();
    await database?.drop();
  });

  it('has a grant for every admin route the app serves, and no grant for a route it lacks', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((route) => !(route in GRANTS))).toEqual([]);
    expect(Object.keys(GRANTS).filter((route) => !routes.includes(route))).toEqual([]);
  });

  it('answers 401 to every guarded route called without credentials', async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((route) => GRANTS[route] !== 'public')) {
      const [method, path] = route.split(' ') as [string, string];
      const answer = await adminCall(running.url, null, method, concrete(path), emptyBody(method));
      if (answer.status !== 401) wrong.push(`${route}: ${answer.status} ${answer.text}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers 401 to a wrong token, whatever the method', async () => {
    // One route per method: wrong tokens count towards the sign-in failure limit of the address.
    const guarded = routes.filter((route) => GRANTS[route] !== 'public');
    const perMethod = new Map(guarded.map((route) => [route.split(' ')[0]!, route]));
    const wrong: string[] = [];
    for (const route of perMethod.values()) {
      const [method, path] = route.split(' ') as [string, string];
      const answer = await send(`${running.url}${ADMIN_API}${concrete(path)}`, {
        method,
        headers: { authorization: `Bearer ${ADMINS.alice.token}x` },
        ...emptyBody(method),
      });
      if (answer.status !== 401) wrong.push(`${route}: ${answer.status} ${answer.text}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers 403 naming the role needed to every role below the grant, by token and by session', async () => {
    const sessions = await Promise.all(
      (['viewer', 'operator'] as const).map(async (role) => {
        const name = PERSON[role];
        const signIn = await send(`${running.url}${ADMIN_API}/session`, {
          json: { name, password: ADMINS[name].token },
        });
        expect(signIn.status, signIn.text).toBe(200);
        const cookie = String(signIn.headers['set-cookie']?.[0]).split(';')[0]!;
        return [role, cookie] as const;
      }),
    );
    const cookies = new Map<AdminRole, string>(sessions);

    const wrong: string[] = [];
    for (const route of routes) {
      const grant = GRANTS[route];
      if (grant === undefined || grant === 'public') continue;
      const [method, path] = route.split(' ') as [string, string];
      for (const role of below(grant)) {
        const byToken = await adminCall(
          running.url,
          PERSON[role],
          method,
          concrete(path),
          emptyBody(method),
        );
        const bySession = await send(`${running.url}${ADMIN_API}${concrete(path)}`, {
          method,
          headers: { cookie: cookies.get(role)!, 'x-requested-with': 'sluice' },
          ...emptyBody(method),
        });
        for (const [how, answer] of [
          ['token', byToken],
          ['session', bySession],
        ] as const) {
          if (answer.status !== 403 || !String(answer.body.message).includes(grant)) {
            wrong.push(`${route} as ${role} by ${how}: ${answer.status} ${answer.text}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('lets the granted role past the guard on every route', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const grant = GRANTS[route];
      if (grant === undefined || grant === 'public') continue;
      const [method, path] = route.split(' ') as [string, string];
      if (STREAMS.has(route)) {
        const status = await streamStatus(
          `${running.url}${ADMIN_API}${concrete(path)}`,
          PERSON[grant],
        );
        if (status !== 200) wrong.push(`${route} as ${grant}: ${status}`);
        continue;
      }
      // An empty body may be refused, but not for want of credentials or a role.
      const answer = await adminCall(
        running.url,
        PERSON[grant],
        method,
        concrete(path),
        emptyBody(method),
      );
      if (answer.status === 401 || (answer.status === 403 && /role/i.test(answer.text))) {
        wrong.push(`${route} as ${grant}: ${answer.status} ${answer.text}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
