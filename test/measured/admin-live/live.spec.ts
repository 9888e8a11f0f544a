import type { AdminEventMap, DecisionCounts, StatsSeries } from '@sluice/admin/api';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminClient, eventually } from '../../system/admin-api/admin.client.js';
import { TOKENS } from '../../system/admin-api/app.module.js';
import { Module, type ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  ADAPTERS,
  uniquePrefix,
  type AdapterName,
  type RunningApp,
} from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { liveApp } from './app.module.js';

afterAll(closeAll);

const INDEX = '<!doctype html><html><body><div id="root"></div></body></html>';

/** The counts of `policy` summed over a series. */
function total(series: StatsSeries, policy: string): DecisionCounts {
  const sum = { allowed: 0, rejected: 0, blocked: 0, delayed: 0, shadowRejected: 0, storeError: 0 };
  for (const point of series.points) {
    const counts = point.policies[policy];
    if (counts === undefined) continue;
    for (const name of Object.keys(sum) as (keyof DecisionCounts)[]) sum[name] += counts[name];
  }
  return sum;
}

/** Reads Server-Sent Events from `url` until `done` says so or `timeoutMs` passes. */
async function readEvents(
  url: string,
  token: string,
  done: (events: { type: string; data: unknown }[]) => boolean,
  timeoutMs: number,
): Promise<{ type: string; data: unknown }[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const events: { type: string; data: unknown }[] = [];
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const type = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data !== '') events.push({ type, data: JSON.parse(data) as unknown });
      }
      if (done(events)) break;
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}

/**
 * Started by NestFactory rather than a testing module: the static files are registered with the
 * HTTP adapter the application is created with, which a testing module's providers never see.
 */
async function startApp(adapter: AdapterName, metadata: ModuleMetadata): Promise<RunningApp> {
  @Module(metadata)
  class LiveAppModule {}
  const app =
    adapter === 'fastify'
      ? await NestFactory.create(LiveAppModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(LiveAppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}

const stores = [
  ['Redis', () => inject('redisUrl')],
  ['memory', () => undefined],
] as const;

describe.each(ADAPTERS)('live counters and the panel on %s', (adapter) => {
  describe.each(stores)('with the %s store', (_, redisUrl) => {
    let database: TestDatabase;
    let panelRoot: string;
    let app: RunningApp;
    let api: ReturnType<typeof adminClient>;

    beforeAll(async () => {
      database = await createTestDatabase();
      panelRoot = await mkdtemp(join(tmpdir(), 'sluice-panel-'));
      await mkdir(join(panelRoot, 'assets'));
      await writeFile(join(panelRoot, 'index.html'), INDEX);
      await writeFile(join(panelRoot, 'assets', 'panel.js'), 'console.log("panel")');
      app = await startApp(
        adapter,
        liveApp({
          redisUrl: redisUrl(),
          prefix: uniquePrefix('admin-live'),
          databaseUrl: database.url,
          panelRoot,
        }),
      );
      api = adminClient(`${app.url}/sluice/api`);
    });

    afterAll(async () => {
      await app?.close();
      await database?.drop();
      if (panelRoot !== undefined) await rm(panelRoot, { recursive: true, force: true });
    });

    const attempt = (user: string) =>
      fetch(`${app.url}/attempt`, { method: 'POST', headers: { 'x-user': user } });

    it('counts each decision once per policy and second: allowed, rejected, then blocked', async () => {
      expect((await attempt('harry')).status).toBe(201);
      expect((await attempt('harry')).status).toBe(429); // refused: the block starts
      expect((await attempt('harry')).status).toBe(429); // refused by the block
      expect((await attempt('ron')).status).toBe(201);

      let series: StatsSeries | undefined;
      await eventually(async () => {
        const reply = await api<StatsSeries>('GET', '/stats?seconds=30', { as: 'viewer' });
        expect(reply.status).toBe(200);
        series = reply.body;
        return total(series, 'attempts').allowed === 2;
      }, 5_000);
      expect(series!.resolution).toBe('second');
      expect(series!.points).toHaveLength(30);
      expect(total(series!, 'attempts')).toEqual({
        allowed: 2,
        rejected: 1,
        blocked: 1,
        delayed: 0,
        shadowRejected: 0,
        storeError: 0,
      });
      const minutes = await api<StatsSeries>('GET', '/stats?minutes=5&policy=attempts');
      expect(minutes.body.resolution).toBe('minute');
      expect(total(minutes.body, 'attempts').allowed).toBe(2);
    });

    it('streams each second as it settles, and the instances, to a signed-in viewer', async () => {
      const started = Date.now();
      const startedSecond = Math.floor(started / 1_000) * 1_000;
      expect((await attempt('hermione')).status).toBe(201);
      // The stream opens with the latest settled second, which may hold earlier tests' attempts.
      const isHermionesSecond = (event: { type: string; data: unknown }) =>
        event.type === 'stats' &&
        Date.parse((event.data as AdminEventMap['stats']).at) >= startedSecond &&
        (event.data as AdminEventMap['stats']).policies.attempts !== undefined;
      const events = await readEvents(
        `${app.url}/sluice/api/events`,
        TOKENS.viewer,
        (seen) => seen.some((event) => event.type === 'instances') && seen.some(isHermionesSecond),
        4_000,
      );
      const second = events.find(isHermionesSecond);
      expect(second, JSON.stringify(events)).toBeDefined();
      expect((second!.data as AdminEventMap['stats']).policies.attempts!.allowed).toBe(1);
      // The panel is at most 2 s behind (docs/architecture.md, live counters).
      expect(Date.now() - started).toBeLessThan(2_600);
      const instances = events.find((event) => event.type === 'instances');
      expect((instances!.data as AdminEventMap['instances']).instances.length).toBeGreaterThan(0);
    });

    it('ends a stream opened with a session once that session signs out', async () => {
      const signIn = await fetch(`${app.url}/sluice/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'victor', password: TOKENS.viewer }),
      });
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(cookie).toMatch(/^sluice_session=/);
      const abort = new AbortController();
      const giveUp = setTimeout(() => abort.abort(), 8_000);
      const response = await fetch(`${app.url}/sluice/api/events`, {
        headers: { cookie, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[
        Symbol.asyncIterator
      ]();
      expect((await chunks.next()).done).toBe(false); // the stream is live
      const signOut = await fetch(`${app.url}/sluice/api/session`, {
        method: 'DELETE',
        headers: { cookie, 'x-requested-with': 'sluice' },
      });
      expect(signOut.status).toBe(204);
      const signedOutAt = Date.now();
      let ended = false;
      try {
        while (!(await chunks.next()).done);
        ended = true;
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      } finally {
        clearTimeout(giveUp);
      }
      // Ended by the server within its one-second check, not by the test's abort after 8 s.
      expect(ended).toBe(true);
      expect(Date.now() - signedOutAt).toBeLessThan(5_000);
    });

    it('continues where GET /stats ended: every second once, none skipped', async () => {
      const history = await api<StatsSeries>('GET', '/stats?seconds=5', { as: 'viewer' });
      const lastRead = Date.parse(history.body.points.at(-1)!.at);
      const events = await readEvents(
        `${app.url}/sluice/api/events`,
        TOKENS.viewer,
        (seen) => seen.filter((event) => event.type === 'stats').length >= 3,
        5_000,
      );
      const streamed = events
        .filter((event) => event.type === 'stats')
        .map((event) => Date.parse((event.data as AdminEventMap['stats']).at));
      // The stream may repeat the last second read (the panel keeps one per second), never skip one.
      expect(streamed[0]! - lastRead).toBeLessThanOrEqual(1_000);
      expect(streamed.slice(1).map((at, index) => at - streamed[index]!)).toEqual([1_000, 1_000]);
    });

    it('refuses the stream and the counts without credentials, and bad queries by name', async () => {
      expect((await fetch(`${app.url}/sluice/api/events`)).status).toBe(401);
      expect((await fetch(`${app.url}/sluice/api/stats`)).status).toBe(401);
      const both = await api('GET', '/stats?seconds=5&minutes=5');
      expect(both.status).toBe(400);
      expect(both.body.issues?.map((issue) => issue.field)).toEqual(['minutes']);
      const tooMany = await api('GET', '/stats?seconds=301');
      expect(tooMany.body.message).toContain('seconds');
      // A week is read from hour roll-ups; minutes beyond six hours are refused.
      expect((await api('GET', '/stats?minutes=10080')).body.issues?.map((i) => i.field)).toEqual([
        'minutes',
      ]);
      expect((await api('GET', '/stats?hours=169')).status).toBe(400);
      const unknown = await api('GET', '/stats?policy=nope');
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain('policy');
    });

    it('serves the panel at /sluice, its routes from index.html, and leaves /sluice/api to the API', async () => {
      const home = await fetch(`${app.url}/sluice/`);
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toContain('text/html');
      expect(await home.text()).toBe(INDEX);
      const deep = await fetch(`${app.url}/sluice/policies/reply`);
      expect(deep.status).toBe(200);
      expect(await deep.text()).toBe(INDEX);
      const asset = await fetch(`${app.url}/sluice/assets/panel.js`);
      expect(await asset.text()).toBe('console.log("panel")');
      const signedOut = await fetch(`${app.url}/sluice/api/session`);
      expect(signedOut.status).toBe(401);
      expect(signedOut.headers.get('content-type')).toContain('application/json');
      // Express leaves unknown API paths to the API's 404; Fastify's static plugin answers any
      // path under /sluice that no route claims with the panel (docs/operations.md says so).
      if (adapter === 'express') {
        const missing = await fetch(`${app.url}/sluice/api/no-such-route`, {
          headers: { authorization: `Bearer ${TOKENS.admin}` },
        });
        expect(missing.status).toBe(404);
        expect(missing.headers.get('content-type')).toContain('application/json');
      }
    });
  });
});
