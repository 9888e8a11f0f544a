import { credentialProblems } from '@sluice/admin';
import { TrackerResolver, type TrustProxy } from '@sluice/nest/internals';
import { isIP } from 'node:net';
import { z } from 'zod';

export type NodeEnv = 'development' | 'production' | 'test';

export interface LoginLimits {
  /** Failed logins allowed per window before the block starts. */
  maxFailures: number;
  windowMs: number;
  /** The first block; each further one is twice as long, up to maxBlockMs. */
  blockMs: number;
  maxBlockMs: number;
}

/** The demo's configuration, read from the environment as a container would get it. */
export interface DemoConfig {
  port: number;
  /** The address the HTTP server listens on: loopback unless HOST says otherwise. */
  host: string;
  /** Absent: limits are kept in this process's memory. */
  redisUrl: string | undefined;
  /** Serve the admin API and the panel at /sluice. */
  admin: boolean;
  /** Absent: the admin keeps its data in an embedded database under dataDir. */
  databaseUrl: string | undefined;
  /** Where the embedded database lives when there is no DATABASE_URL. */
  dataDir: string;
  /**
   * Where the forum keeps its posts: `database` (DATABASE_URL, or the embedded default's own),
   * `memory` (this process only), or `auto`: a database when there is one.
   */
  posts: 'auto' | 'database' | 'memory';
  /** SLUICE_ADMIN_TOKENS as given: `name:role:token` entries, checked by the admin module. */
  adminTokens: string | undefined;
  syncIntervalMs: number;
  heartbeatIntervalMs: number;
  /** How long another admin's unacknowledged penalty events wait before this one takes them. */
  penaltyClaimIdleMs: number;
  prefix: string;
  /** How long a Redis call may take before the policy's onStoreError decides. */
  timeoutMs: number;
  /** Every policy's onStoreError; absent: each keeps its own (allow, the library's default). */
  onStoreError: 'allow' | 'deny' | 'local' | undefined;
  /** Serve Prometheus metrics at GET /metrics. */
  metrics: boolean;
  trustProxy: TrustProxy;
  nodeEnv: NodeEnv;
  login: LoginLimits;
}

/** The environment held a bad value; the message names each variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const MAX_BLOCK_MS = 365 * 24 * 3_600_000;
const PREFIX = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Containers often set a variable to the empty string to mean "not set". */
const unset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

const shown = (raw: string): string =>
  JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);

function integer(min: number, max: number, fallback: number) {
  return z
    .string()
    .optional()
    .transform((raw, context) => {
      if (unset(raw)) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) {
        context.addIssue({
          code: 'custom',
          message: `must be a whole number from ${min} to ${max}, got ${shown(raw)}`,
        });
        return z.NEVER;
      }
      return value;
    });
}

function serviceUrl(protocols: string[]) {
  return z
    .string()
    .optional()
    .transform((raw, context) => {
      if (unset(raw)) return undefined;
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        url = undefined;
      }
      if (url === undefined || !protocols.includes(url.protocol)) {
        // The value is not echoed: it may hold a password.
        const expected = protocols.map((protocol) => `${protocol}//`).join(' or ');
        context.addIssue({
          code: 'custom',
          message: `must be a ${expected} URL${url ? `, got one starting ${url.protocol}//` : ''}`,
        });
        return z.NEVER;
      }
      return raw;
    });
}

/** Entries are `name:role:token`; the token is never echoed. */
const adminTokens = z
  .string()
  .optional()
  .transform((raw, context) => {
    if (unset(raw)) return undefined;
    // The admin module's own rules, each problem said under this variable's name.
    for (const message of credentialProblems(raw)) context.addIssue({ code: 'custom', message });
    return raw;
  });

const onOff = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, context): boolean => {
      if (unset(raw)) return fallback;
      if (raw === 'on' || raw === 'off') return raw === 'on';
      context.addIssue({ code: 'custom', message: `must be on or off, got ${shown(raw)}` });
      return z.NEVER;
    });

const dataDir = z
  .string()
  .optional()
  .transform((raw, context) => {
    if (unset(raw)) return '.sluice-data';
    if (raw.includes('\0') || raw.length > 1024) {
      context.addIssue({ code: 'custom', message: 'must be a directory path' });
      return z.NEVER;
    }
    return raw;
  });

/** An IPv4 or IPv6 address, or a host name; a demo reachable from elsewhere is a choice. */
const host = z
  .string()
  .optional()
  .transform((raw, context) => {
    if (unset(raw)) return '127.0.0.1';
    if (
      isIP(raw) === 0 &&
      !/^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
        raw,
      )
    ) {
      context.addIssue({
        code: 'custom',
        message: `must be an IP address (0.0.0.0 for every interface) or a host name, got ${shown(raw)}`,
      });
      return z.NEVER;
    }
    return raw;
  });

const prefix = z
  .string()
  .optional()
  .transform((raw, context) => {
    if (unset(raw)) return 'sluice-demo';
    if (!PREFIX.test(raw)) {
      context.addIssue({
        code: 'custom',
        message: `must be 1 to 64 letters, digits, '_', '.', ':' or '-', got ${shown(raw)}`,
      });
      return z.NEVER;
    }
    return raw;
  });

/**
 * Express's conventions: unset or "false" trusts no proxy, "true" every hop, a number that many
 * hops, anything else a comma-separated list of addresses, CIDR ranges or loopback, linklocal,
 * uniquelocal.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((raw, context): TrustProxy => {
    if (unset(raw) || raw === 'false') return false;
    if (raw === 'true') return true;
    const value: TrustProxy = /^\d+$/.test(raw) ? Number(raw) : raw;
    try {
      new TrackerResolver(value);
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: (error as Error).message.replace(/^trustProxy: /, ''),
      });
      return z.NEVER;
    }
    return value;
  });

const onStoreError = z
  .string()
  .optional()
  .transform((raw, context): DemoConfig['onStoreError'] => {
    if (unset(raw)) return undefined;
    if (raw === 'allow' || raw === 'deny' || raw === 'local') return raw;
    context.addIssue({
      code: 'custom',
      message: `must be allow, deny or local, got ${shown(raw)}`,
    });
    return z.NEVER;
  });

const nodeEnv = z
  .string()
  .optional()
  .transform((raw, context): NodeEnv => {
    if (unset(raw)) return 'development';
    if (raw === 'development' || raw === 'production' || raw === 'test') return raw;
    context.addIssue({
      code: 'custom',
      message: `must be development, production or test, got ${shown(raw)}`,
    });
    return z.NEVER;
  });

const posts = z
  .string()
  .optional()
  .transform((raw, context) => {
    if (unset(raw)) return 'auto' as const;
    if (raw === 'auto' || raw === 'database' || raw === 'memory') return raw;
    context.addIssue({
      code: 'custom',
      message: `must be auto, database or memory, got ${shown(raw)}`,
    });
    return z.NEVER;
  });

const environment = z
  .object({
    PORT: integer(0, 65_535, 3000),
    HOST: host,
    REDIS_URL: serviceUrl(['redis:', 'rediss:']),
    DATABASE_URL: serviceUrl(['postgres:', 'postgresql:']),
    SLUICE_ADMIN: onOff(true),
    SLUICE_DATA_DIR: dataDir,
    DEMO_POSTS: posts,
    SLUICE_ADMIN_TOKENS: adminTokens,
    SLUICE_SYNC_INTERVAL_MS: integer(10, 300_000, 5_000),
    SLUICE_HEARTBEAT_INTERVAL_MS: integer(10, 300_000, 5_000),
    SLUICE_PENALTY_CLAIM_IDLE_MS: integer(100, 3_600_000, 30_000),
    SLUICE_PREFIX: prefix,
    SLUICE_TIMEOUT_MS: integer(1, 60_000, 100),
    SLUICE_ON_STORE_ERROR: onStoreError,
    SLUICE_METRICS: onOff(false),
    TRUST_PROXY: trustProxy,
    NODE_ENV: nodeEnv,
    DEMO_LOGIN_MAX_FAILURES: integer(1, 1000, 5),
    DEMO_LOGIN_WINDOW_MS: integer(1, MAX_BLOCK_MS, 60_000),
    DEMO_LOGIN_BLOCK_MS: integer(1, MAX_BLOCK_MS, 60_000),
    DEMO_LOGIN_MAX_BLOCK_MS: integer(1, MAX_BLOCK_MS, 3_600_000),
  })
  .superRefine((env, context) => {
    if (env.NODE_ENV === 'production' && env.SLUICE_ADMIN && env.DATABASE_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'required in production while SLUICE_ADMIN is on: the embedded database is for one development process (or set SLUICE_ADMIN=off)',
      });
    }
    if (env.DEMO_POSTS === 'database' && env.DATABASE_URL === undefined && !env.SLUICE_ADMIN) {
      context.addIssue({
        code: 'custom',
        path: ['DEMO_POSTS'],
        message:
          'database needs DATABASE_URL, or SLUICE_ADMIN on for the embedded database; use memory or auto',
      });
    }
    if (env.DEMO_LOGIN_MAX_BLOCK_MS < env.DEMO_LOGIN_BLOCK_MS) {
      context.addIssue({
        code: 'custom',
        path: ['DEMO_LOGIN_MAX_BLOCK_MS'],
        message: `must be at least DEMO_LOGIN_BLOCK_MS (${env.DEMO_LOGIN_BLOCK_MS}), got ${env.DEMO_LOGIN_MAX_BLOCK_MS}`,
      });
    }
  });

/** Reads and checks the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): DemoConfig {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  const vars = parsed.data;
  return {
    port: vars.PORT,
    host: vars.HOST,
    redisUrl: vars.REDIS_URL,
    admin: vars.SLUICE_ADMIN,
    databaseUrl: vars.DATABASE_URL,
    dataDir: vars.SLUICE_DATA_DIR,
    posts: vars.DEMO_POSTS,
    adminTokens: vars.SLUICE_ADMIN_TOKENS,
    syncIntervalMs: vars.SLUICE_SYNC_INTERVAL_MS,
    heartbeatIntervalMs: vars.SLUICE_HEARTBEAT_INTERVAL_MS,
    penaltyClaimIdleMs: vars.SLUICE_PENALTY_CLAIM_IDLE_MS,
    prefix: vars.SLUICE_PREFIX,
    timeoutMs: vars.SLUICE_TIMEOUT_MS,
    onStoreError: vars.SLUICE_ON_STORE_ERROR,
    metrics: vars.SLUICE_METRICS,
    trustProxy: vars.TRUST_PROXY,
    nodeEnv: vars.NODE_ENV,
    login: {
      maxFailures: vars.DEMO_LOGIN_MAX_FAILURES,
      windowMs: vars.DEMO_LOGIN_WINDOW_MS,
      blockMs: vars.DEMO_LOGIN_BLOCK_MS,
      maxBlockMs: vars.DEMO_LOGIN_MAX_BLOCK_MS,
    },
  };
}

/** A Redis or PostgreSQL URL without its password, fit for a log line. */
export function redactedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password !== '') url.password = '***';
  return url.toString();
}
