// Demo processes with the admin module: one Redis, one prefix and one database shared by all,
// three credentials of different roles, and the calls a test makes to the admin API.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach } from 'vitest';
import {
  ADMIN_API,
  startDemo,
  type DemoEnv,
  type DemoProcess,
} from '../../support/demo-process.js';
import { send, type Answer, type RequestOptions } from '../../support/http.js';

export type AdminRole = 'viewer' | 'operator' | 'admin';

/** The people of the tests, one per role; tokens are new for every test file. */
export const ADMINS = {
  alice: { role: 'admin', token: `alice-${randomBytes(12).toString('hex')}` },
  olga: { role: 'operator', token: `olga-${randomBytes(12).toString('hex')}` },
  victor: { role: 'viewer', token: `victor-${randomBytes(12).toString('hex')}` },
} as const satisfies Record<string, { role: AdminRole; token: string }>;

export type AdminName = keyof typeof ADMINS;

/** SLUICE_ADMIN_TOKENS for ADMINS: "alice:admin:…,olga:operator:…,victor:viewer:…". */
export const ADMIN_TOKENS = Object.entries(ADMINS)
  .map(([name, { role, token }]) => `${name}:${role}:${token}`)
  .join(',');

export interface AdminDemoSetup {
  redisUrl: string;
  databaseUrl: string;
  prefix: string;
  /** How often instances compare their version with the stored one; the demo's default when absent. */
  syncIntervalMs?: number;
  heartbeatIntervalMs?: number;
  penaltyClaimIdleMs?: number;
  /** Every policy's onStoreError (the demo's SLUICE_ON_STORE_ERROR). */
  onStoreError?: 'allow' | 'deny' | 'local';
  timeoutMs?: number;
}

export function adminDemoEnv(setup: AdminDemoSetup): DemoEnv {
  return {
    REDIS_URL: setup.redisUrl,
    DATABASE_URL: setup.databaseUrl,
    SLUICE_PREFIX: setup.prefix,
    SLUICE_ADMIN_TOKENS: ADMIN_TOKENS,
    SLUICE_SYNC_INTERVAL_MS: setup.syncIntervalMs?.toString(),
    SLUICE_HEARTBEAT_INTERVAL_MS: setup.heartbeatIntervalMs?.toString(),
    SLUICE_PENALTY_CLAIM_IDLE_MS: setup.penaltyClaimIdleMs?.toString(),
    SLUICE_ON_STORE_ERROR: setup.onStoreError,
    SLUICE_TIMEOUT_MS: setup.timeoutMs?.toString(),
  };
}

/** A request to `<url>/sluice/api<path>` as `who` (Bearer), or without credentials when null. */
export function adminCall(
  url: string,
  who: AdminName | null,
  method: string,
  path: string,
  options: Omit<RequestOptions, 'method'> = {},
): Promise<Answer> {
  const headers = { ...options.headers };
  if (who !== null) headers.authorization = `Bearer ${ADMINS[who].token}`;
  return send(`${url}${ADMIN_API}${path}`, { ...options, method, headers });
}

/** The snapshot version an instance enforces, from its GET /health. */
export async function appliedVersion(url: string): Promise<number> {
  const answer = await send(`${url}/health`);
  const version = answer.body.policyVersion;
  if (answer.status !== 200 || typeof version !== 'number') {
    throw new Error(`GET ${url}/health answered ${answer.status} ${answer.text}`);
  }
  return version;
}

/** Waits until every demo applies `version` or a later one, for at most `timeoutMs`. */
export function allOnVersion(
  demos: readonly DemoProcess[],
  version: number,
  timeoutMs: number,
): Promise<true> {
  return waitFor(
    `every instance on version ${version}`,
    async () =>
      (await Promise.all(demos.map((demo) => appliedVersion(demo.url)))).every(
        (applied) => applied >= version,
      ) || undefined,
    { timeoutMs },
  );
}

/** Calls `probe` every `intervalMs` until it returns a value other than undefined, or fails. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 20 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** After a failed test, prints what each demo wrote last: the first thing to read when one died. */
export function showDemoOutputOnFailure(demos: () => readonly DemoProcess[]): void {
  afterEach((context) => {
    if (context.task.result?.state !== 'fail') return;
    for (const demo of demos()) {
      console.error(`--- demo pid ${demo.pid} (${demo.url}), last output:\n${demo.output()}`);
    }
  });
}

/** Starts `count` demos on `env`: the first alone, to migrate and seed the database, then the rest. */
export async function startAdminDemos(env: DemoEnv, count: number): Promise<DemoProcess[]> {
  const first = await startDemo(env);
  const others = await Promise.all(Array.from({ length: count - 1 }, () => startDemo(env)));
  return [first, ...others];
}
