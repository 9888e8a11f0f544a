import type { DataSource } from 'typeorm';

/** The plans the demo sells; `api-burst` names a tier for each (policies.ts). */
export type Plan = 'free' | 'pro';

/** The keys every new demo starts with, and their plans. */
export const SEED_KEYS: ReadonlyArray<{ key: string; plan: Plan }> = [
  { key: 'free-demo-1', plan: 'free' },
  { key: 'free-demo-2', plan: 'free' },
  { key: 'pro-demo-1', plan: 'pro' },
];

/** Where the demo keeps its API keys: its database when it has one, else memory. */
export interface ApiKeyStore {
  /** The key's plan; undefined for a key the demo did not issue. */
  planOf(key: string): Promise<Plan | undefined>;
}

export const API_KEY_STORE = Symbol('demo:api-key-store');

/** The seeded keys, in this process. */
export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly plans = new Map(SEED_KEYS.map(({ key, plan }) => [key, plan]));

  planOf(key: string): Promise<Plan | undefined> {
    return Promise.resolve(this.plans.get(key));
  }
}

/** The `demo_api_key` table (migrations/1795950000000-api-keys.migration.ts). */
export class DatabaseApiKeyStore implements ApiKeyStore {
  constructor(private readonly dataSource: DataSource) {}

  async planOf(key: string): Promise<Plan | undefined> {
    const rows = await this.dataSource.query<Array<{ plan: Plan }>>(
      'SELECT plan FROM demo_api_key WHERE key = $1',
      [key],
    );
    return rows[0]?.plan;
  }
}
