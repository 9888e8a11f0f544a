// Identifiers over 256 characters (a JWT used as the key) are shown cut; the admin names them by
// the stored key its history gives (docs/operations.md, "Identifiers too long to show").
import type { BlockedList, PenaltyPage, PolicyView } from '@sluice/admin/api';
import { describe, expect, inject, it } from 'vitest';
import { startApp } from '../../support/nest-app.js';
import { eventually } from './admin.client.js';
import { useAdminApp } from './admin.fixture.js';
import { adminApp } from './app.module.js';
import { asBody } from './policy.bodies.js';

const SHARED = `eyJhbGciOiJIUzI1NiJ9.${'x'.repeat(400)}`;
const FIRST = `${SHARED}.first`;
const SECOND = `${SHARED}.second`;
const CUT = SHARED.slice(0, 256);
const WITHIN_MS = 1_000;

describe('blocks on identifiers over 256 characters', () => {
  const admin = useAdminApp('express');

  it('lists two such identifiers apart, and lifts one by its key on every instance', async () => {
    const other = await startApp(
      'fastify',
      adminApp({
        redisUrl: inject('redisUrl'),
        prefix: admin.prefix,
        databaseUrl: admin.database.url,
      }),
    );
    try {
      const current = (await admin.api<PolicyView>('GET', '/policies/reply')).body;
      const penalty = { afterViolations: 1, blockMs: 600_000 };
      const changed = await admin.api('PUT', '/policies/reply', {
        body: { ...asBody(current), penalty },
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      const reply = (url: string, user: string) =>
        fetch(`${url}/posts/reply`, { method: 'POST', headers: { 'x-user': user } });
      await eventually(async () => (await reply(other.url, 'probe')).status === 201, 5_000);
      // Four replies each: three pass, the fourth is refused and sets the block off, which the
      // other instance then caches.
      for (const user of [FIRST, SECOND]) {
        const statuses: number[] = [];
        for (let sent = 0; sent < 4; sent++) statuses.push((await reply(other.url, user)).status);
        expect(statuses).toEqual([201, 201, 201, 429]);
      }

      let blocked: BlockedList = { blocked: [], total: 0 };
      await eventually(async () => {
        blocked = (await admin.api<BlockedList>('GET', '/blocked?policy=reply')).body;
        return blocked.total === 2;
      }, 5_000);
      const entries = blocked.blocked;
      expect(entries.map((entry) => entry.identifier)).toEqual([CUT, CUT]);
      const keys = entries.map((entry) => entry.key);
      expect(new Set(keys).size).toBe(2);
      for (const key of keys) expect(key).toMatch(/^#h:[A-Za-z0-9_-]{43}$/);

      // The cut text names another key, which is not blocked.
      const path = `/blocked/reply/${encodeURIComponent(CUT)}`;
      expect((await admin.api('DELETE', path)).status).toBe(404);
      const malformed = await admin.api('DELETE', `${path}?key=${encodeURIComponent('#h:short')}`);
      expect(malformed.status).toBe(400);
      expect(malformed.body.issues?.map((issue) => issue.field)).toEqual(['key']);

      // Lifting the first key (and resetting its counters) lets exactly one of the two through
      // on the other instance, which had both blocks cached, within a second.
      const query = `?key=${encodeURIComponent(keys[0]!)}&forgetOffences=true`;
      const lifted = await admin.api('DELETE', `${path}${query}`, { as: 'operator' });
      expect(lifted.status, JSON.stringify(lifted.body)).toBe(200);
      const resetPath = `/counters/reply/${encodeURIComponent(CUT)}${query}`;
      const reset = await admin.api('DELETE', resetPath, { as: 'operator' });
      expect(reset.status, JSON.stringify(reset.body)).toBe(200);
      const liftedAt = Date.now();
      let passed: string[] = [];
      await eventually(async () => {
        passed = [];
        for (const user of [FIRST, SECOND]) {
          if ((await reply(other.url, user)).status === 201) passed.push(user);
        }
        return passed.length > 0;
      }, WITHIN_MS);
      expect(Date.now() - liftedAt).toBeLessThanOrEqual(WITHIN_MS + 200);
      expect(passed).toHaveLength(1);

      await eventually(async () => {
        const left = (await admin.api<BlockedList>('GET', '/blocked?policy=reply')).body;
        return left.total === 1 && left.blocked[0]?.key !== keys[0];
      }, 5_000);
      const history = (await admin.api<PenaltyPage>('GET', '/penalties?policy=reply')).body;
      const states = history.penalties.map((record) => [record.key, record.state]);
      expect(states).toEqual(
        expect.arrayContaining([
          [keys[0], 'lifted'],
          [keys[1], 'active'],
        ]),
      );
    } finally {
      await other.close();
    }
  });
});
