// The newcomer's first run: no REDIS_URL and no DATABASE_URL. Limits in memory, the admin on an
// embedded PostgreSQL (PGlite) under SLUICE_DATA_DIR, the panel at /sluice, a one-time token.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_API,
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  type DemoProcess,
} from './support/demo-process.js';
import { send } from './support/http.js';

const ONE_TIME_TOKEN = /sign in as "admin" with the one-time token (\S+)/;
const PANEL_URL = /Admin panel on (http:\/\/127\.0\.0\.1:\d+\/sluice)\b/;

let dataDir: string;

async function startEmbedded(): Promise<{ demo: DemoProcess; token: string }> {
  const demo = await startDemo({ SLUICE_ADMIN: 'on', SLUICE_DATA_DIR: dataDir });
  const token = ONE_TIME_TOKEN.exec(demo.output())?.[1];
  if (token === undefined) throw new Error(`no one-time token printed:\n${demo.output()}`);
  return { demo, token };
}

function asAdmin(demo: DemoProcess, token: string, method: string, path: string, json?: unknown) {
  return send(`${demo.url}${ADMIN_API}${path}`, {
    method,
    json,
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('the demo with nothing configured', () => {
  beforeAll(async () => {
    await ensureDemoBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-embedded-'));
  }, 180_000);

  afterAll(async () => {
    await stopAllDemos();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}-forum`, { recursive: true, force: true });
  });

  it('serves the panel, prints its URL and a one-time token, and keeps a policy change across a restart', async () => {
    const first = await startEmbedded();
    const output = first.demo.output();
    expect(output).toContain('Limits kept in this process (no REDIS_URL)');
    expect(output).toContain(`an embedded PostgreSQL (PGlite) in ${dataDir}\n`);
    expect(output).toContain(`Posts kept in an embedded PostgreSQL (PGlite) in ${dataDir}-forum`);
    // It listens on loopback unless HOST says otherwise, and its files are the owner's alone.
    expect(PANEL_URL.exec(output)?.[1]).toBe(`http://127.0.0.1:${first.demo.port}/sluice`);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);

    const panel = await send(`${first.demo.url}/sluice/`);
    expect(panel.status).toBe(200);
    expect(panel.headers['content-type']).toMatch(/text\/html/);
    expect(panel.text).toContain('<div id="root">');
    expect((await send(`${first.demo.url}${ADMIN_API}/policies`)).status).toBe(401);

    const reply = await asAdmin(first.demo, first.token, 'GET', '/policies/reply');
    expect(reply.status).toBe(200);
    const changed = await asAdmin(first.demo, first.token, 'PUT', '/policies/reply', {
      algorithm: reply.body.algorithm,
      periodMs: reply.body.periodMs,
      key: reply.body.key,
      version: reply.body.version,
      limit: 2,
      comment: 'embedded default test',
    });
    expect(changed.status).toBe(200);

    const post = await send(`${first.demo.url}/posts`, {
      json: { title: 'hello', body: 'first post' },
      headers: { 'x-user': 'harry' },
    });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await send(`${first.demo.url}/posts/${String(post.body.id)}/replies`, {
        json: { body: 'me too' },
        headers: { 'x-user': 'harry' },
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    await first.demo.stop();

    const second = await startEmbedded();
    expect(second.token).not.toBe(first.token);
    const kept = await asAdmin(second.demo, second.token, 'GET', '/policies/reply');
    expect(kept.body.limit).toBe(2);
    const audit = await asAdmin(second.demo, second.token, 'GET', '/audit');
    expect(JSON.stringify(audit.body)).toContain('embedded default test');
    // The forum's posts outlive the process too, in a database of their own beside the admin's.
    const again = await send(`${second.demo.url}/posts/${String(post.body.id)}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      title: 'hello',
      replies: [{ body: 'me too' }, { body: 'me too' }],
    });
  }, 120_000);
});
