import { afterAll, beforeAll, inject } from 'vitest';
import {
  startApp,
  uniquePrefix,
  type AdapterName,
  type Overrides,
  type RunningApp,
} from '../../support/nest-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { adminClient } from './admin.client.js';
import { adminApp, type AdminAppOptions } from './app.module.js';

export interface AdminFixture {
  readonly app: RunningApp;
  readonly database: TestDatabase;
  readonly prefix: string;
  /** The admin API at /sluice/api, called as a role (admin by default). */
  readonly api: ReturnType<typeof adminClient>;
}

/**
 * Before the file's tests: a database of its own and an app (SluiceModule on the run's Redis under
 * a fresh prefix, plus the admin) on `adapter`. Both go away after them.
 */
export function useAdminApp(
  adapter: AdapterName,
  options: Partial<AdminAppOptions> = {},
  overrides?: Overrides,
): AdminFixture {
  let state: AdminFixture | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase();
    const prefix = uniquePrefix('admin');
    const app = await startApp(
      adapter,
      adminApp({ redisUrl: inject('redisUrl'), prefix, databaseUrl: database.url, ...options }),
      undefined,
      overrides,
    );
    state = { app, database, prefix, api: adminClient(`${app.url}/sluice/api`) };
  });
  afterAll(async () => {
    await state?.app.close();
    await state?.database.drop();
  });
  const current = (): AdminFixture => {
    if (state === undefined) throw new Error('the admin app is not running yet');
    return state;
  };
  return {
    get app() {
      return current().app;
    },
    get database() {
      return current().database;
    },
    get prefix() {
      return current().prefix;
    },
    get api() {
      return current().api;
    },
  };
}
