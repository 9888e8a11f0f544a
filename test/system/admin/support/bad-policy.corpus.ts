// Requests the admin API must refuse with a 400 naming `field` (null: a body that is not even
// JSON, which names no field). `bodyFor` receives the reply policy's current version, so that
// the version is never the reason for a refusal.

export interface BadRequest {
  title: string;
  method?: string;
  path: string;
  /** A string is sent as it is, as application/json. */
  body?: unknown;
  bodyFor?: (replyVersion: number) => Record<string, unknown>;
  field: string | null;
}

const DAY_MS = 24 * 3_600_000;
const GOOD = { algorithm: 'fixed-window', limit: 10, periodMs: 60_000, key: 'user' };

/** The reply policy with `changes` on top (an undefined value removes the field). */
function reply(title: string, field: string, changes: Record<string, unknown>): BadRequest {
  return {
    title,
    path: '/policies/reply',
    bodyFor: (version: number) => {
      const body: Record<string, unknown> = { ...GOOD, version, ...changes };
      for (const [name, value] of Object.entries(changes))
        if (value === undefined) delete body[name];
      return body;
    },
    field,
  };
}

/** A good policy PUT under a name the path carries. */
function named(title: string, name: string): BadRequest {
  return {
    title,
    path: `/policies/${encodeURIComponent(name)}`,
    body: { ...GOOD, version: 0 },
    field: 'name',
  };
}

const penalty = { afterViolations: 3, blockMs: 1_000 };

export const BAD_REQUESTS: BadRequest[] = [
  reply('limit as a word', 'limit', { limit: 'ten' }),
  reply('limit zero', 'limit', { limit: 0 }),
  reply('negative limit', 'limit', { limit: -5 }),
  reply('fractional limit', 'limit', { limit: 1.5 }),
  reply('limit of two billion', 'limit', { limit: 2e9 }),
  reply('limit null', 'limit', { limit: null }),
  reply('limit missing', 'limit', { limit: undefined }),
  reply('more than one per microsecond', 'limit', { limit: 2_000, periodMs: 1 }),
  reply('sliding log of 200 000 entries', 'limit', { algorithm: 'sliding-log', limit: 200_000 }),
  reply('period zero', 'periodMs', { periodMs: 0 }),
  reply('period as a string', 'periodMs', { periodMs: '60000' }),
  reply('period over a year', 'periodMs', { periodMs: 365 * DAY_MS + 1 }),
  reply('unknown algorithm', 'algorithm', { algorithm: 'leaky' }),
  reply('algorithm missing', 'algorithm', { algorithm: undefined }),
  reply('algorithm as a number', 'algorithm', { algorithm: 42 }),
  reply('unknown field', 'color', { color: 'red' }),
  reply('prototype key', '__proto__', { ['__proto__']: { limit: 1 } }),
  reply('description of 50 000 characters', 'description', { description: 'x'.repeat(50_000) }),
  reply('description as a number', 'description', { description: 5 }),
  reply('segments on gcra', 'segments', { algorithm: 'gcra', segments: 4 }),
  reply('burst on fixed-window', 'burst', { burst: 20 }),
  reply('maxDelayMs on token-bucket', 'maxDelayMs', { algorithm: 'token-bucket', maxDelayMs: 500 }),
  reply('one segment', 'segments', { algorithm: 'sliding-window', segments: 1 }),
  reply('segments not dividing the period', 'segments', {
    algorithm: 'sliding-window',
    periodMs: 1_000,
    segments: 7,
  }),
  reply('burst zero', 'burst', { algorithm: 'token-bucket', burst: 0 }),
  reply('bucket refilling for centuries', 'burst', {
    algorithm: 'token-bucket',
    limit: 1,
    periodMs: 365 * DAY_MS,
    burst: 1_000_000,
  }),
  reply('cost above the limit', 'cost', { cost: 11 }),
  reply('key with a space', 'key', { key: 'ip address' }),
  reply('empty key', 'key', { key: '' }),
  reply('user agent pattern that does not compile', 'match.userAgent', {
    match: { userAgent: '(' },
  }),
  reply('empty user agent pattern', 'match.userAgent', { match: { userAgent: '' } }),
  reply('unknown match field', 'match.path', { match: { userAgent: 'bot', path: '/x' } }),
  reply('unknown count', 'count', { count: 'some' }),
  reply('unknown mode', 'mode', { mode: 'on' }),
  reply('unknown store error behaviour', 'onStoreError', { onStoreError: 'retry' }),
  reply('unknown consistency', 'consistency', { consistency: 'strong' }),
  reply('eventual leaky-bucket', 'consistency', {
    algorithm: 'leaky-bucket',
    consistency: 'eventual',
  }),
  reply('sync interval of zero', 'syncMs', { consistency: 'eventual', syncMs: 0 }),
  reply('sync interval as text', 'syncMs', { consistency: 'eventual', syncMs: '50 ms' }),
  reply('penalty after zero violations', 'penalty.afterViolations', {
    penalty: { ...penalty, afterViolations: 0 },
  }),
  reply('penalty without blockMs', 'penalty.blockMs', { penalty: { afterViolations: 3 } }),
  reply('penalty that shrinks', 'penalty.escalation', { penalty: { ...penalty, escalation: 0.5 } }),
  reply('penalty ceiling under the first block', 'penalty.maxBlockMs', {
    penalty: { ...penalty, maxBlockMs: 10 },
  }),
  reply('unknown penalty field', 'penalty.foo', { penalty: { ...penalty, foo: 1 } }),
  reply('overrides as an object', 'overrides', { overrides: {} }),
  reply('override with a limit and unlimited', 'overrides.0', {
    overrides: [{ identifier: '42', limit: 5, unlimited: true }],
  }),
  reply('override named twice', 'overrides.1.identifier', {
    overrides: [
      { identifier: '42', limit: 5 },
      { identifier: '42', limit: 6 },
    ],
  }),
  reply('override expiring "tomorrow"', 'overrides.0.expiresAt', {
    overrides: [{ identifier: '42', limit: 5, expiresAt: 'tomorrow' }],
  }),
  reply('negative override', 'overrides.0.limit', { overrides: [{ identifier: '42', limit: -1 }] }),
  reply('override identifier of 10 000 characters', 'overrides.0.identifier', {
    overrides: [{ identifier: 'i'.repeat(10_000), limit: 5 }],
  }),
  reply('negative version', 'version', { version: -1 }),
  reply('version as a word', 'version', { version: 'abc' }),
  reply('comment of 501 characters', 'comment', { comment: 'c'.repeat(501) }),
  reply('body naming another policy', 'name', { name: 'like' }),
  named('SQL in the name', "reply'; DROP TABLE sluice_policy; --"),
  named('path traversal in the name', '../x'),
  named('markup in the name', '<script>alert(1)</script>'),
  named('name of 65 characters', 'n'.repeat(65)),
  named('name with an accent', 'réponse'),
  named('name starting with a dot', '.hidden'),
  { title: 'body that is a list', path: '/policies/reply', body: [GOOD], field: null },
  { title: 'body that is not JSON', path: '/policies/reply', body: '{"limit":', field: null },
  {
    title: 'switch as a word',
    path: '/enforcement',
    body: { enabled: 'yes' },
    field: 'enabled',
  },
  { title: 'switch missing', path: '/enforcement', body: {}, field: 'enabled' },
  {
    title: 'switch with an unknown field',
    path: '/enforcement',
    body: { enabled: false, force: true },
    field: 'force',
  },
];
