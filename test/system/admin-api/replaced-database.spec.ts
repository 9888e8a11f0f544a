// A policy database replaced by an empty one, or restored from an older backup, has a version
// below the one Redis holds. At start the admin moves its version past Redis's, so the next
// change reaches the instances instead of being ignored as older than what they have.
import type { InstanceList, PolicyView } from '@sluice/admin/api';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminClient, eventually, publishedSnapshot } from './admin.client.js';
import { adminApp } from './app.module.js';
import { quota } from './policy.bodies.js';

const running: Array<RunningApp | TestDatabase> = [];
afterEach(async () => {
  for (const each of running.splice(0).reverse()) {
    await ('close' in each ? each.close() : each.drop());
  }
  await closeAll();
});

async function adminOn(prefix: string): Promise<ReturnType<typeof adminClient>> {
  const database = await createTestDatabase();
  running.push(database);
  const app = await startApp(
    'express',
    adminApp({ redisUrl: inject('redisUrl'), prefix, databaseUrl: database.url }),
  );
  running.push(app);
  return adminClient(`${app.url}/sluice/api`);
}

describe('a replaced policy database', () => {
  it('takes its version past the one Redis holds, so its next change is applied', async () => {
    const prefix = uniquePrefix('replaced');
    const redis = connectRedis();
    const original = await adminOn(prefix);
    let version = 0;
    for (const limit of [10, 20, 30, 40, 50]) {
      const body = { ...quota(limit), ...(version === 0 ? {} : { version }) };
      version = (await original<PolicyView>('PUT', '/policies/quota', { body })).body.version;
    }
    expect((await publishedSnapshot(redis, prefix)).version).toBe(version);

    // The same Redis, an empty database: as after a restore from a backup taken at the start.
    const replacement = await adminOn(prefix);
    const created = await replacement<PolicyView>('PUT', '/policies/quota', { body: quota(7) });
    expect(created.status).toBe(201);
    expect(created.body.version).toBeGreaterThan(version);
    await eventually(async () => {
      const published = await publishedSnapshot(redis, prefix);
      const policy = published.policies.find((p) => (p as { name: string }).name === 'quota');
      return (
        published.version === created.body.version && (policy as { limit: number }).limit === 7
      );
    }, 5_000); // Both instances, the original's too, now enforce the replacement's version.
    await eventually(async () => {
      const { instances } = (await original<InstanceList>('GET', '/instances')).body;
      return (
        instances.length === 2 &&
        instances.every((instance) => instance.policyVersion === created.body.version)
      );
    }, 10_000);
  });
});
