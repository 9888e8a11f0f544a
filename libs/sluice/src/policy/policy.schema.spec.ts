import { describe, expect, it } from 'vitest';
import { PolicyValidationError } from './policy-validation.error.js';
import { capacity, parsePolicy } from './policy.schema.js';

const DAY_MS = 86_400_000;

/** A valid fixed-window policy; each case spoils one thing. */
const base = { name: 'reply', algorithm: 'fixed-window', limit: 5, periodMs: 60_000 };

/** Parses `input`, expects a PolicyValidationError, and returns it. */
function refusal(input: unknown): PolicyValidationError {
  let thrown: unknown;
  try {
    parsePolicy(input);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected ${describeInput(input)} to be refused`).toBeInstanceOf(
    PolicyValidationError,
  );
  return thrown as PolicyValidationError;
}

function fieldsOf(input: unknown): string[] {
  return refusal(input).issues.map((issue) => issue.field);
}

function describeInput(input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

describe('parsePolicy refuses a bad policy, naming the field', () => {
  it.each([
    ['negative limit', { ...base, limit: -1 }, 'limit'],
    ['zero limit', { ...base, limit: 0 }, 'limit'],
    ['fractional limit', { ...base, limit: 2.5 }, 'limit'],
    ['limit as a string', { ...base, limit: '5' }, 'limit'],
    ['NaN limit', { ...base, limit: Number.NaN }, 'limit'],
    ['infinite limit', { ...base, limit: Number.POSITIVE_INFINITY }, 'limit'],
    ['missing limit', { name: 'reply', algorithm: 'fixed-window', periodMs: 1000 }, 'limit'],
    ['zero period', { ...base, periodMs: 0 }, 'periodMs'],
    ['negative period', { ...base, periodMs: -1000 }, 'periodMs'],
    ['fractional period', { ...base, periodMs: 1.5 }, 'periodMs'],
    ['period above 365 days', { ...base, periodMs: 366 * DAY_MS }, 'periodMs'],
    ['unknown algorithm', { ...base, algorithm: 'leaky' }, 'algorithm'],
    ['missing period', { name: 'reply', algorithm: 'fixed-window', limit: 5 }, 'periodMs'],
    ['calendar beside a period', { ...base, calendar: { unit: 'day' } }, 'periodMs'],
    [
      "an override's renewal day on a policy not counted by the month",
      { ...base, overrides: [{ identifier: 'a', anchorDay: 15 }] },
      'overrides.0.anchorDay',
    ],
    [
      "an override's renewal day out of range",
      {
        name: 'reply',
        algorithm: 'fixed-window',
        limit: 5,
        calendar: { unit: 'month' },
        overrides: [{ identifier: 'a', anchorDay: 32 }],
      },
      'overrides.0.anchorDay',
    ],
    [
      'usage on another algorithm',
      { ...base, algorithm: 'gcra', usage: { header: 'x-usage-tokens', maxCost: 10 } },
      'usage',
    ],
    ['usage without maxCost', { ...base, usage: { header: 'x-usage-tokens' } }, 'usage.maxCost'],
    [
      'usage maxCost below the reserved cost',
      { ...base, cost: 5, usage: { header: 'x-usage-tokens', maxCost: 4 } },
      'usage.maxCost',
    ],
    [
      'usage header not a header name',
      { ...base, usage: { header: 'x usage', maxCost: 9 } },
      'usage.header',
    ],
    [
      'usage onFailure unknown',
      { ...base, usage: { maxCost: 9, onFailure: 'maybe' } },
      'usage.onFailure',
    ],
    [
      'usage on an eventual policy',
      { ...base, consistency: 'eventual', usage: { maxCost: 9 } },
      'consistency',
    ],
    ['concurrency with a burst', { ...base, algorithm: 'concurrency', burst: 4 }, 'burst'],
    [
      'concurrency counted eventually',
      { ...base, algorithm: 'concurrency', consistency: 'eventual' },
      'consistency',
    ],
    [
      'concurrency counting failures only',
      { ...base, algorithm: 'concurrency', count: 'failures' },
      'count',
    ],
    [
      'calendar on another algorithm',
      { name: 'reply', algorithm: 'gcra', limit: 5, calendar: { unit: 'day' } },
      'calendar',
    ],
    [
      'unknown calendar unit',
      { name: 'reply', algorithm: 'fixed-window', limit: 5, calendar: { unit: 'fortnight' } },
      'calendar.unit',
    ],
    [
      'unknown time zone',
      {
        name: 'reply',
        algorithm: 'fixed-window',
        limit: 5,
        calendar: { unit: 'day', timeZone: 'Mars/Olympus' },
      },
      'calendar.timeZone',
    ],
    [
      'anchor day 32',
      {
        name: 'reply',
        algorithm: 'fixed-window',
        limit: 5,
        calendar: { unit: 'month', anchorDay: 32 },
      },
      'calendar.anchorDay',
    ],
    [
      'anchor day on a week',
      {
        name: 'reply',
        algorithm: 'fixed-window',
        limit: 5,
        calendar: { unit: 'week', anchorDay: 3 },
      },
      'calendar.anchorDay',
    ],
    [
      'eventual calendar',
      {
        name: 'reply',
        algorithm: 'fixed-window',
        limit: 5,
        calendar: { unit: 'day' },
        consistency: 'eventual',
      },
      'consistency',
    ],
    ['algorithm in the wrong case', { ...base, algorithm: 'GCRA' }, 'algorithm'],
    ['burst 0', { ...base, algorithm: 'token-bucket', burst: 0 }, 'burst'],
    ['negative burst', { ...base, algorithm: 'gcra', burst: -3 }, 'burst'],
    ['fractional burst', { ...base, algorithm: 'leaky-bucket', burst: 1.5 }, 'burst'],
    ['unknown consistency', { ...base, consistency: 'strong' }, 'consistency'],
    [
      'eventual leaky-bucket',
      { ...base, algorithm: 'leaky-bucket', consistency: 'eventual' },
      'consistency',
    ],
    ['syncMs 0', { ...base, consistency: 'eventual', syncMs: 0 }, 'syncMs'],
    ['syncMs above a minute', { ...base, consistency: 'eventual', syncMs: 60_001 }, 'syncMs'],
    ['fractional syncMs', { ...base, consistency: 'eventual', syncMs: 12.5 }, 'syncMs'],
    ['syncMs as a string', { ...base, consistency: 'eventual', syncMs: '50' }, 'syncMs'],
    ['cost 0', { ...base, cost: 0 }, 'cost'],
    ['fractional cost', { ...base, cost: 1.5 }, 'cost'],
    ['fixed-window cost above limit', { ...base, limit: 5, cost: 6 }, 'cost'],
    ['sliding-log cost above limit', { ...base, algorithm: 'sliding-log', cost: 6 }, 'cost'],
    ['sliding-window cost above limit', { ...base, algorithm: 'sliding-window', cost: 6 }, 'cost'],
    [
      'token-bucket cost above burst',
      { ...base, algorithm: 'token-bucket', limit: 10, burst: 3, cost: 4 },
      'cost',
    ],
    [
      'leaky-bucket cost above burst',
      { ...base, algorithm: 'leaky-bucket', limit: 5, burst: 8, cost: 9 },
      'cost',
    ],
    ['gcra cost above the default burst (limit)', { ...base, algorithm: 'gcra', cost: 6 }, 'cost'],
    [
      'escalation below 1',
      { ...base, penalty: { afterViolations: 3, blockMs: 1000, escalation: 0.5 } },
      'penalty.escalation',
    ],
    [
      'escalation 0',
      { ...base, penalty: { afterViolations: 3, blockMs: 1000, escalation: 0 } },
      'penalty.escalation',
    ],
    [
      'afterViolations 0',
      { ...base, penalty: { afterViolations: 0, blockMs: 1000 } },
      'penalty.afterViolations',
    ],
    ['blockMs 0', { ...base, penalty: { afterViolations: 1, blockMs: 0 } }, 'penalty.blockMs'],
    [
      'maxBlockMs below blockMs',
      { ...base, penalty: { afterViolations: 1, blockMs: 5000, maxBlockMs: 1000 } },
      'penalty.maxBlockMs',
    ],
    [
      'negative forgetAfterMs',
      { ...base, penalty: { afterViolations: 1, blockMs: 5000, forgetAfterMs: -1 } },
      'penalty.forgetAfterMs',
    ],
    ['unknown top-level field', { ...base, foo: 1 }, 'foo'],
    [
      'prototype-looking field',
      JSON.parse('{"name":"a","algorithm":"gcra","limit":1,"periodMs":1,"__proto__":{"x":1}}'),
      '__proto__',
    ],
    [
      'unknown field inside penalty',
      { ...base, penalty: { afterViolations: 3, blockMs: 1000, blockMS: 5 } },
      'penalty.blockMS',
    ],
    [
      'unknown field inside match',
      { ...base, match: { userAgent: 'bot', ip: '1.2.3.4' } },
      'match.ip',
    ],
    [
      'unknown field inside an override',
      { ...base, overrides: [{ identifier: '42', limit: 9, plan: 'gold' }] },
      'overrides.0.plan',
    ],
    [
      'a NUL in an override identifier',
      { ...base, overrides: [{ identifier: 'a\u0000b', limit: 9 }] },
      'overrides.0.identifier',
    ],
    [
      'CR/LF in an override identifier',
      { ...base, overrides: [{ identifier: 'a\r\nb', limit: 9 }] },
      'overrides.0.identifier',
    ],
    [
      'an unpaired surrogate in an override identifier',
      { ...base, overrides: [{ identifier: 'a\ud800b', limit: 9 }] },
      'overrides.0.identifier',
    ],
    ['burst on fixed-window', { ...base, burst: 10 }, 'burst'],
    ['burst on sliding-log', { ...base, algorithm: 'sliding-log', burst: 10 }, 'burst'],
    ['burst on sliding-window', { ...base, algorithm: 'sliding-window', burst: 10 }, 'burst'],
    ['segments on fixed-window', { ...base, segments: 10 }, 'segments'],
    ['segments on sliding-log', { ...base, algorithm: 'sliding-log', segments: 10 }, 'segments'],
    ['segments on token-bucket', { ...base, algorithm: 'token-bucket', segments: 10 }, 'segments'],
    ['segments on gcra', { ...base, algorithm: 'gcra', segments: 4 }, 'segments'],
    [
      'segments not dividing periodMs × 1000',
      { ...base, algorithm: 'sliding-window', periodMs: 1, segments: 3 },
      'segments',
    ],
    [
      'segments not dividing a longer period',
      { ...base, algorithm: 'sliding-window', periodMs: 1000, segments: 7 },
      'segments',
    ],
    ['segments 1', { ...base, algorithm: 'sliding-window', segments: 1 }, 'segments'],
    ['maxDelayMs on gcra', { ...base, algorithm: 'gcra', maxDelayMs: 100 }, 'maxDelayMs'],
    ['limit above periodMs × 1000', { ...base, limit: 1001, periodMs: 1 }, 'limit'],
    [
      'token-bucket limit above periodMs × 1000',
      { ...base, algorithm: 'token-bucket', limit: 2_000_001, periodMs: 2000 },
      'limit',
    ],
    [
      'sliding-log limit above 100000',
      { ...base, algorithm: 'sliding-log', limit: 100_001, periodMs: 60_000 },
      'limit',
    ],
    ['limit above one billion', { ...base, limit: 1_000_000_001, periodMs: 364 * DAY_MS }, 'limit'],
    ['empty key', { ...base, key: '' }, 'key'],
    ['key with a space', { ...base, key: 'user id' }, 'key'],
    ['key with braces', { ...base, key: 'x{y}' }, 'key'],
    ['header key without a name', { ...base, key: 'header:' }, 'key'],
    ['header key with a bad name', { ...base, key: 'header:x_api key' }, 'key'],
    ['key starting with a capital', { ...base, key: 'User' }, 'key'],
    ['key as a number', { ...base, key: 7 }, 'key'],
    ['userAgent that is not a regex', { ...base, match: { userAgent: 'bot(' } }, 'match.userAgent'],
    ['userAgent with a bad class', { ...base, match: { userAgent: '[z-a]' } }, 'match.userAgent'],
    ['empty userAgent', { ...base, match: { userAgent: '' } }, 'match.userAgent'],
    ['unknown mode', { ...base, mode: 'dry-run' }, 'mode'],
    ['unknown onStoreError', { ...base, onStoreError: 'retry' }, 'onStoreError'],
    ['unknown count', { ...base, count: 'successes' }, 'count'],
    [
      'override with both limit and unlimited',
      { ...base, overrides: [{ identifier: '42', limit: 10, unlimited: true }] },
      'overrides.0',
    ],
    [
      'override with neither limit nor unlimited',
      { ...base, overrides: [{ identifier: '42' }] },
      'overrides.0',
    ],
    [
      'override with a negative limit',
      { ...base, overrides: [{ identifier: '42', limit: -1 }] },
      'overrides.0.limit',
    ],
    [
      'override limit above periodMs × 1000',
      { ...base, periodMs: 1, overrides: [{ identifier: '42', limit: 1001 }] },
      'overrides.0.limit',
    ],
    [
      'override with an empty identifier',
      { ...base, overrides: [{ identifier: '', limit: 1 }] },
      'overrides.0.identifier',
    ],
    [
      'override with a bad expiresAt',
      { ...base, overrides: [{ identifier: '42', limit: 1, expiresAt: 'next tuesday' }] },
      'overrides.0.expiresAt',
    ],
    [
      'duplicate override identifiers',
      {
        ...base,
        overrides: [
          { identifier: '42', limit: 10 },
          { identifier: '7', limit: 3 },
          { identifier: '42', unlimited: true },
        ],
      },
      'overrides.2.identifier',
    ],
    ['overrides not an array', { ...base, overrides: { identifier: '42', limit: 1 } }, 'overrides'],
    ['penalty not an object', { ...base, penalty: 'strict' }, 'penalty'],
  ])('%s', (_, input, field) => {
    const error = refusal(input);
    expect(error.issues.map((issue) => issue.field)).toContain(field);
    expect(error.message).toContain(`${field}:`);
    for (const issue of error.issues) expect(issue.message.length).toBeGreaterThan(0);
  });

  it('names both the typo and the missing field it was meant to be', () => {
    const fields = fieldsOf({ name: 'reply', algorithm: 'fixed-window', limt: 5, periodMs: 1000 });
    expect(fields).toEqual(expect.arrayContaining(['limt', 'limit']));
  });

  describe('huge strings', () => {
    it.each([
      ['name', { ...base, name: 'a'.repeat(1_000_000) }, 'name'],
      ['name of 65 characters', { ...base, name: 'a'.repeat(65) }, 'name'],
      ['description', { ...base, description: 'x'.repeat(1001) }, 'description'],
      ['updatedBy', { ...base, updatedBy: 'x'.repeat(257) }, 'updatedBy'],
      ['updatedAt', { ...base, updatedAt: 'x'.repeat(65) }, 'updatedAt'],
      ['userAgent', { ...base, match: { userAgent: 'b'.repeat(257) } }, 'match.userAgent'],
      [
        'override identifier',
        { ...base, overrides: [{ identifier: 'i'.repeat(257), limit: 1 }] },
        'overrides.0.identifier',
      ],
      ['key', { ...base, key: `header:${'h'.repeat(65)}` }, 'key'],
    ])('%s', (_, input, field) => {
      const started = performance.now();
      const error = refusal(input);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(error.issues.map((issue) => issue.field)).toContain(field);
    });

    it('the refusal does not echo a huge invalid name back', () => {
      // The message ends up in a 400 body and in logs: it must not carry megabytes.
      const error = refusal({ ...base, name: 'a'.repeat(1_000_000) });
      expect(error.message.length).toBeLessThan(2000);
    });

    it('refuses more than 10 000 overrides', () => {
      const overrides = Array.from({ length: 10_001 }, (_, i) => ({
        identifier: `u${i}`,
        limit: 1,
      }));
      expect(fieldsOf({ ...base, overrides })).toContain('overrides');
    });
  });

  describe('injection attempts in names', () => {
    it.each([
      ['a b'],
      ['x{y}'],
      ['{x}'],
      ['a\nb'],
      ['a\rb'],
      ['a\u0000b'],
      ["'; DROP TABLE policies; --"],
      ['a:b'],
      ['a*'],
      ['../etc/passwd'],
      ['<script>alert(1)</script>'],
      ['_leading-underscore'],
      ['.hidden'],
      [''],
      ['名前'],
    ])('%j', (name) => {
      const error = refusal({ ...base, name });
      expect(error.issues.map((issue) => issue.field)).toEqual(['name']);
    });

    it.each([[42], [null], [['reply']], [{ toString: () => 'reply' }]])(
      'a name that is not a string: %j',
      (name) => {
        expect(fieldsOf({ ...base, name })).toContain('name');
      },
    );
  });

  describe('input that is not an object', () => {
    it.each([[null], [undefined], [42], ['reply'], [true], [[]], [[base]], [() => base]])(
      '%j',
      (input) => {
        const error = refusal(input);
        expect(error.issues.length).toBeGreaterThan(0);
        expect(error.issues.map((issue) => issue.field)).toContain('(policy)');
        expect(error.policyName).toBeUndefined();
      },
    );
  });

  describe('several bad fields at once', () => {
    it('names every field the schema refuses', () => {
      const error = refusal({
        name: 'a b',
        algorithm: 'nope',
        limit: -1,
        periodMs: 0,
        key: 'a b',
        mode: 'loud',
        extra: true,
        penalty: { afterViolations: 0, blockMs: 1000, escalation: 0.1, bogus: 1 },
        overrides: [{ identifier: '', limit: 1 }],
      });
      expect(error.issues.map((issue) => issue.field).sort()).toEqual(
        [
          'name',
          'algorithm',
          'limit',
          'periodMs',
          'key',
          'mode',
          'extra',
          'penalty.afterViolations',
          'penalty.escalation',
          'penalty.bogus',
          'overrides.0.identifier',
        ].sort(),
      );
      for (const field of ['name', 'algorithm', 'limit', 'periodMs', 'extra', 'penalty.bogus']) {
        expect(error.message).toContain(`${field}:`);
      }
    });

    it('names every field the cross-field checks refuse', () => {
      const fields = fieldsOf({
        ...base,
        limit: 5,
        burst: 10,
        segments: 4,
        maxDelayMs: 50,
        cost: 6,
        penalty: { afterViolations: 1, blockMs: 5000, maxBlockMs: 10 },
        overrides: [
          { identifier: '42', limit: 1, unlimited: true },
          { identifier: '42', limit: 2 },
        ],
      });
      expect(fields).toEqual(
        expect.arrayContaining([
          'burst',
          'segments',
          'maxDelayMs',
          'cost',
          'penalty.maxBlockMs',
          'overrides.0',
          'overrides.1.identifier',
        ]),
      );
    });

    it('names a cross-field mistake alongside a field the schema refuses', () => {
      // limit is refused by the schema; burst on a fixed window is wrong whatever the limit.
      const fields = fieldsOf({ ...base, limit: -1, burst: 10 });
      expect(fields).toEqual(expect.arrayContaining(['limit', 'burst']));
    });

    it('reports the policy name when it is valid', () => {
      const error = refusal({ ...base, limit: -1 });
      expect(error.policyName).toBe('reply');
      expect(error.message).toContain('"reply"');
    });
  });
});

describe('parsePolicy fills in the defaults of a good policy', () => {
  it('a minimal fixed-window policy', () => {
    expect(parsePolicy(base)).toEqual({
      name: 'reply',
      algorithm: 'fixed-window',
      limit: 5,
      periodMs: 60_000,
      calendar: null,
      burst: null,
      segments: null,
      maxDelayMs: null,
      cost: 1,
      usage: null,
      key: 'user',
      match: null,
      count: 'all',
      penalty: null,
      mode: 'enforce',
      onStoreError: 'allow',
      consistency: 'exact',
      syncMs: 50,
      overrides: [],
      tiers: null,
      description: null,
      version: 0,
      source: 'code',
      updatedAt: null,
      updatedBy: null,
      candidate: null,
    });
  });

  it('usage: the header lower-cased, a failure refunded unless kept', () => {
    expect(
      parsePolicy({ ...base, usage: { header: 'X-Usage-Tokens', maxCost: 4_000 } }).usage,
    ).toEqual({
      header: 'x-usage-tokens',
      maxCost: 4_000,
      onFailure: 'refund',
    });
    expect(parsePolicy({ ...base, usage: { maxCost: 9, onFailure: 'keep' } }).usage).toEqual({
      header: null,
      maxCost: 9,
      onFailure: 'keep',
    });
  });

  it("an override may give only a month's renewal day, or one beside its limit or tier", () => {
    const policy = parsePolicy({
      name: 'billing',
      algorithm: 'fixed-window',
      limit: 5,
      calendar: { unit: 'month' },
      overrides: [
        { identifier: 'a', anchorDay: 15 },
        { identifier: 'b', limit: 9, anchorDay: 31 },
      ],
    });
    expect(policy.overrides.map((each) => [each.limit, each.anchorDay])).toEqual([
      [null, 15],
      [9, 31],
    ]);
  });

  it('concurrency: a limit of requests in flight, its period the lease', () => {
    const policy = parsePolicy({ ...base, algorithm: 'concurrency', limit: 3, periodMs: 60_000 });
    expect(policy).toMatchObject({
      algorithm: 'concurrency',
      limit: 3,
      periodMs: 60_000,
      burst: null,
    });
  });

  it.each(['day', 'week', 'month', 'year'] as const)(
    "a calendar policy per %s reads back as itself: its period, the unit's longest, is kept",
    (unit) => {
      const policy = parsePolicy({
        name: 'api-quota',
        algorithm: 'fixed-window',
        limit: 20,
        calendar: {
          unit,
          timeZone: 'Europe/Paris',
          ...(unit === 'month' ? { anchorDay: 15 } : {}),
        },
      });
      // What a snapshot carries to every instance, and GET /policies answers: a year's longest
      // (366 days and an hour) is past the 365 days a periodMs may be given.
      expect(parsePolicy(JSON.parse(JSON.stringify(policy)))).toEqual(policy);
    },
  );

  it('refuses a periodMs past 365 days without a calendar, naming it', () => {
    expect(() =>
      parsePolicy({
        name: 'slow',
        algorithm: 'fixed-window',
        limit: 20,
        periodMs: 366 * 86_400_000 + 3_600_000,
      }),
    ).toThrow(/periodMs: must be an integer from 1 to 31536000000/);
  });

  it("a calendar policy: UTC unless a zone is named, the period its unit's longest", () => {
    const daily = parsePolicy({
      name: 'api-daily',
      algorithm: 'fixed-window',
      limit: 20,
      calendar: { unit: 'day' },
    });
    expect([daily.calendar, daily.periodMs]).toEqual([
      { unit: 'day', timeZone: 'UTC', anchorDay: null },
      25 * 3_600_000,
    ]);
    const billing = parsePolicy({
      name: 'api-tokens',
      algorithm: 'fixed-window',
      limit: 2000,
      calendar: { unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 },
    });
    expect(billing.calendar).toEqual({ unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 });
  });

  it("a candidate's sample: every identifier when the snapshot does not say, 1–100 when it does", () => {
    const candidate = {
      rules: { algorithm: 'fixed-window', limit: 3, periodMs: 60_000 },
      expiresAt: 1_800_000_000_000,
      proposedBy: 'olga',
      proposedAt: '2026-11-26T12:00:00.000Z',
      baseVersion: 4,
    };
    expect(parsePolicy({ ...base, candidate }).candidate?.samplePercent).toBe(100);
    expect(
      parsePolicy({ ...base, candidate: { ...candidate, samplePercent: 10 } }).candidate
        ?.samplePercent,
    ).toBe(10);
    for (const samplePercent of [0, 101, 12.5, '10']) {
      expect(fieldsOf({ ...base, candidate: { ...candidate, samplePercent } })).toEqual([
        'candidate.samplePercent',
      ]);
    }
  });

  it('the design document example', () => {
    const policy = parsePolicy({
      name: 'reply',
      algorithm: 'sliding-log',
      limit: 5,
      periodMs: 60000,
      burst: null,
      segments: null,
      maxDelayMs: 0,
      cost: 1,
      key: 'user',
      match: { userAgent: 'bot|spider|crawl' },
      count: 'all',
      penalty: {
        afterViolations: 3,
        blockMs: 600000,
        escalation: 2,
        maxBlockMs: 86400000,
        forgetAfterMs: 604800000,
      },
      mode: 'enforce',
      onStoreError: 'allow',
      overrides: [{ identifier: '42', limit: 100, expiresAt: null }],
      description: 'replies per user',
      version: 7,
      source: 'admin',
      updatedAt: '2025-01-01T00:00:00Z',
      updatedBy: 'alice',
    });
    expect(policy.match).toEqual({ userAgent: 'bot|spider|crawl' });
    expect(policy.overrides).toEqual([
      {
        identifier: '42',
        prefix: false,
        keyKind: 'user',
        limit: 100,
        unlimited: false,
        tier: null,
        anchorDay: null,
        expiresAt: null,
      },
    ]);
    expect(policy.version).toBe(7);
    expect(policy.source).toBe('admin');
  });

  it.each(['token-bucket', 'leaky-bucket', 'gcra'] as const)(
    '%s: burst null means the capacity is the limit',
    (algorithm) => {
      const policy = parsePolicy({ ...base, algorithm, limit: 7, burst: null });
      expect(policy.burst).toBeNull();
      expect(capacity(policy.algorithm, policy.limit, policy.burst)).toBe(7);
      // cost up to the capacity is fine, one more is not
      expect(parsePolicy({ ...base, algorithm, limit: 7, cost: 7 }).cost).toBe(7);
      expect(fieldsOf({ ...base, algorithm, limit: 7, cost: 8 })).toContain('cost');
    },
  );

  it.each(['token-bucket', 'leaky-bucket', 'gcra'] as const)(
    '%s: an explicit burst is the capacity, above or below the limit',
    (algorithm) => {
      const big = parsePolicy({ ...base, algorithm, limit: 5, burst: 20, cost: 20 });
      expect(capacity(big.algorithm, big.limit, big.burst)).toBe(20);
      const small = parsePolicy({ ...base, algorithm, limit: 5, burst: 2 });
      expect(capacity(small.algorithm, small.limit, small.burst)).toBe(2);
      expect(fieldsOf({ ...base, algorithm, limit: 5, burst: 2, cost: 3 })).toContain('cost');
    },
  );

  it('window algorithms keep burst null (capacity = limit)', () => {
    for (const algorithm of ['fixed-window', 'sliding-log', 'sliding-window'] as const) {
      const policy = parsePolicy({ ...base, algorithm, burst: null });
      expect(policy.burst).toBeNull();
      expect(capacity(algorithm, policy.limit, policy.burst)).toBe(policy.limit);
    }
  });

  it('sliding-window gets 10 segments by default, and keeps an explicit count', () => {
    expect(parsePolicy({ ...base, algorithm: 'sliding-window' }).segments).toBe(10);
    expect(parsePolicy({ ...base, algorithm: 'sliding-window', segments: null }).segments).toBe(10);
    expect(parsePolicy({ ...base, algorithm: 'sliding-window', segments: 4 }).segments).toBe(4);
    // the default divides even the shortest period (1 ms = 1000 µs)
    expect(parsePolicy({ ...base, algorithm: 'sliding-window', periodMs: 1 }).segments).toBe(10);
    expect(parsePolicy({ ...base, algorithm: 'fixed-window' }).segments).toBeNull();
  });

  it('penalty defaults: escalation 1, forgetAfterMs 7 days, maxBlockMs one day or blockMs', () => {
    expect(
      parsePolicy({ ...base, penalty: { afterViolations: 3, blockMs: 60_000 } }).penalty,
    ).toEqual({
      afterViolations: 3,
      blockMs: 60_000,
      escalation: 1,
      maxBlockMs: DAY_MS,
      forgetAfterMs: 7 * DAY_MS,
    });
    expect(
      parsePolicy({ ...base, penalty: { afterViolations: 1, blockMs: 2 * DAY_MS } }).penalty
        ?.maxBlockMs,
    ).toBe(2 * DAY_MS);
    expect(
      parsePolicy({
        ...base,
        penalty: {
          afterViolations: 1,
          blockMs: 10,
          escalation: 1.5,
          maxBlockMs: 100,
          forgetAfterMs: 0,
        },
      }).penalty,
    ).toEqual({
      afterViolations: 1,
      blockMs: 10,
      escalation: 1.5,
      maxBlockMs: 100,
      forgetAfterMs: 0,
    });
    expect(parsePolicy({ ...base, penalty: null }).penalty).toBeNull();
  });

  it('leaky-bucket keeps maxDelayMs; other algorithms accept 0 or null and drop it', () => {
    expect(parsePolicy({ ...base, algorithm: 'leaky-bucket', maxDelayMs: 250 }).maxDelayMs).toBe(
      250,
    );
    expect(parsePolicy({ ...base, algorithm: 'leaky-bucket' }).maxDelayMs).toBeNull();
    expect(parsePolicy({ ...base, algorithm: 'gcra', maxDelayMs: 0 }).maxDelayMs).toBeNull();
  });

  it('limits at the edges are accepted', () => {
    expect(parsePolicy({ ...base, limit: 1000, periodMs: 1 }).limit).toBe(1000);
    expect(
      parsePolicy({ ...base, algorithm: 'sliding-log', limit: 100_000, periodMs: 1000 }).limit,
    ).toBe(100_000);
    expect(parsePolicy({ ...base, periodMs: 365 * DAY_MS }).periodMs).toBe(365 * DAY_MS);
    expect(parsePolicy({ ...base, name: 'a'.repeat(64) }).name).toHaveLength(64);
  });

  it('keys: ip, user, header:<name> and tracker names', () => {
    for (const key of ['ip', 'user', 'header:x-api-key', 'tenant', 'api_client-2']) {
      expect(parsePolicy({ ...base, key }).key).toBe(key);
    }
  });

  it('overrides: ISO expiry becomes epoch ms, unlimited and denylist are kept', () => {
    const policy = parsePolicy({
      ...base,
      overrides: [
        { identifier: 'a', limit: 50, expiresAt: '2030-01-01T00:00:00+02:00' },
        { identifier: 'b', unlimited: true, expiresAt: 1_900_000_000_000 },
        { identifier: 'c', limit: 0 },
        { identifier: 'c', keyKind: 'ip', unlimited: true },
      ],
    });
    expect(policy.overrides).toEqual([
      {
        identifier: 'a',
        prefix: false,
        keyKind: 'user',
        limit: 50,
        unlimited: false,
        tier: null,
        anchorDay: null,
        expiresAt: Date.parse('2029-12-31T22:00:00Z'),
      },
      {
        identifier: 'b',
        prefix: false,
        keyKind: 'user',
        limit: null,
        unlimited: true,
        tier: null,
        anchorDay: null,
        expiresAt: 1_900_000_000_000,
      },
      {
        identifier: 'c',
        prefix: false,
        keyKind: 'user',
        limit: 0,
        unlimited: false,
        tier: null,
        anchorDay: null,
        expiresAt: null,
      },
      // The same text as another kind of identifier is another entry.
      {
        identifier: 'c',
        prefix: false,
        keyKind: 'ip',
        limit: null,
        unlimited: true,
        tier: null,
        anchorDay: null,
        expiresAt: null,
      },
    ]);
    expect(() =>
      parsePolicy({
        ...base,
        overrides: [
          { identifier: 'c', limit: 1, keyKind: 'header:X' },
          { identifier: 'c', limit: 2, keyKind: 'header:x' },
        ],
      }),
    ).toThrow(/overrides\.1\.identifier: appears twice for header:x/);
    // Headers arrive in lower case: a key kind naming one is counted so, wherever it is written.
    const headed = parsePolicy({
      ...base,
      key: 'header:X-API-Key',
      overrides: [{ identifier: 'c', limit: 1, keyKind: 'header:X-API-Key' }],
    });
    expect(headed.key).toBe('header:x-api-key');
    expect(headed.overrides[0]?.keyKind).toBe('header:x-api-key');
    expect(() =>
      parsePolicy({
        ...base,
        overrides: [{ identifier: 'c', limit: 1, keyKind: 'no such kind!' }],
      }),
    ).toThrow(/overrides\.0\.keyKind: must be 'ip', 'user'/);
  });

  it('refuses tier names that plain objects would lose or misread, naming the field', () => {
    const rules = { name: 'reply', algorithm: 'gcra', limit: 5, periodMs: 1000 };
    // As a request body arrives: JSON gives `__proto__` as a key of its own.
    const proto = JSON.parse('{"__proto__": {"limit": 3}}') as unknown;
    expect(() => parsePolicy({ ...rules, tiers: proto })).toThrow(/tiers\.__proto__: must be 1-32/);
    expect(() =>
      parsePolicy({
        ...rules,
        tiers: { free: { limit: 2 } },
        overrides: [{ identifier: 'x', tier: 'toString' }],
      }),
    ).toThrow(/overrides\.0\.tier: must name one of the policy's tiers \(free\), got "toString"/);
    // A name an object has by inheritance is an ordinary tier when the policy defines it.
    const own = parsePolicy({
      ...rules,
      tiers: { toString: { limit: 3 } },
      overrides: [{ identifier: 'x', tier: 'toString' }],
    });
    expect(own.overrides[0]?.tier).toBe('toString');
  });

  it('tiers: their rates with defaults, and overrides that assign one', () => {
    const policy = parsePolicy({
      ...base,
      algorithm: 'token-bucket',
      tiers: { free: { limit: 5 }, pro: { limit: 50, burst: 80 } },
      overrides: [{ identifier: 'partner-1', tier: 'pro' }],
    });
    expect(policy.tiers).toEqual({
      free: { limit: 5, burst: null, maxDelayMs: null },
      pro: { limit: 50, burst: 80, maxDelayMs: null },
    });
    expect(policy.overrides[0]).toMatchObject({
      identifier: 'partner-1',
      tier: 'pro',
      limit: null,
    });
    expect(parsePolicy({ ...base, tiers: {} }).tiers).toBeNull();
    // A prefix and the exact identifier of the same text are two entries; two prefixes are not.
    const both = parsePolicy({
      ...base,
      overrides: [
        { identifier: 'partner-', prefix: true, limit: 2 },
        { identifier: 'partner-', limit: 3 },
      ],
    });
    expect(both.overrides.map((o) => [o.prefix, o.limit])).toEqual([
      [true, 2],
      [false, 3],
    ]);
    expect(() =>
      parsePolicy({
        ...base,
        overrides: [
          { identifier: 'p-', prefix: true, limit: 2 },
          { identifier: 'p-', prefix: true, limit: 3 },
        ],
      }),
    ).toThrow(/overrides\.1\.identifier: appears twice for user as a prefix/);
  });

  it('tiers: each checked as the policy is, naming the tier', () => {
    const issues = (input: object) => {
      try {
        parsePolicy({ ...base, ...input });
        return [];
      } catch (error) {
        return (error as PolicyValidationError).issues.map((issue) => issue.field);
      }
    };
    expect(issues({ tiers: { 'no spaces': { limit: 1 } } })).toEqual(['tiers.no spaces']);
    expect(issues({ tiers: { free: { limit: 0 } } })).toEqual(['tiers.free.limit']);
    expect(issues({ tiers: { free: { limit: 1, burst: 2 } } })).toEqual(['tiers.free.burst']);
    expect(issues({ tiers: { free: { limit: 60_000_001 } } })).toEqual(['tiers.free.limit']);
    expect(issues({ tiers: { free: { limit: 1, window: 5 } } })).toEqual(['tiers.free.window']);
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`t${i}`, { limit: 1 }]));
    expect(issues({ tiers: many })).toEqual(['tiers']);
    expect(
      issues({ tiers: { free: { limit: 1 } }, overrides: [{ identifier: 'a', tier: 'pro' }] }),
    ).toEqual(['overrides.0.tier']);
    expect(
      issues({
        tiers: { free: { limit: 1 } },
        overrides: [{ identifier: 'a', tier: 'free', limit: 3 }],
      }),
    ).toEqual(['overrides.0']);
  });

  it('does not mutate its input', () => {
    const input = { ...base, penalty: { afterViolations: 1, blockMs: 10 }, overrides: [] };
    const copy = structuredClone(input);
    parsePolicy(input);
    expect(input).toEqual(copy);
  });
});
