// Keys (docs/algorithms.md, keys, hash tags and identifiers): `<prefix>:{<keyKind>:<identifier>}:<policy>:<part>`; identifiers longer than
// 128 characters, or holding `{`, `}`, whitespace or control characters, are hashed. Hostile
// identifiers must neither crash the engine, nor break slotting on Redis Cluster, nor share
// counters with one another.
import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidIdentifierError, SluiceEngine, toIdentifier } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';
import { identifierKey } from '@sluice/nest/src/keys/key.builder.js';
import { minuteClock } from '../../support/minute.clock.js';
import { closeAll, connectCluster } from '../../support/redis.clients.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = connectCluster();
  if (cluster.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      cluster.once('ready', resolve);
      cluster.once('error', reject);
    });
  }
});
afterAll(closeAll);

const TEN_KB = 10 * 1024;
// eslint-disable-next-line no-control-regex
const UNSAFE = /[{}\s\u0000-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_KEY = /[\s\u0000-\u001f\u007f-\u009f]/u;

/** Hostile identifiers, each with a label for the test name. None is empty. */
const HOSTILE: Array<[label: string, identifier: string]> = [
  ['open brace', '{'],
  ['close brace', '}'],
  ['a whole hash tag', '{abc}'],
  ['an empty hash tag', '{}'],
  ['reversed braces', '}abc{'],
  ['a tag inside', 'user{42}x'],
  ['10 KB', 'x'.repeat(TEN_KB)],
  ['10 KB of braces', '{}'.repeat(TEN_KB / 2)],
  ['10 KB differing only at the end', `${'x'.repeat(TEN_KB - 1)}y`],
  ['129 characters', 'z'.repeat(129)],
  ['128 characters', 'z'.repeat(128)],
  ['newline', 'a\nb'],
  ['carriage return', 'a\rb'],
  ['trailing newline', 'alice\n'],
  ['NUL', 'a\u0000b'],
  ['only NUL', '\u0000'],
  ['DEL', 'a\u007fb'],
  ['C1 control', 'a\u0085b'],
  ['emoji', '🦀'],
  ['emoji sequence', '👩‍👩‍👧‍👦'],
  ['RTL override', 'abc\u202edef'],
  ['zero-width space', 'a\u200bb'],
  ['whitespace only', '   '],
  ['tab only', '\t'],
  ['no-break space', '\u00a0'],
  ['starts with #h:', '#h:abc'],
  ['just #h:', '#h:'],
  ['glob characters', '*?[a-z]\\'],
  ['key separators', 'a:b:c'],
  ['looks like a key', 'sluice:{user:42}:reply:s'],
  ['SQL injection', "'; DROP TABLE users; --"],
  ['Lua/CRLF injection', '"]) redis.call("FLUSHALL") --\r\n*1\r\n$8\r\nFLUSHALL\r\n'],
  ['unicode letters', 'Ünïcødé-名前'],
];

/** The same identifiers twice over, so a pair that collides would show. */
const ALL = HOSTILE.map(([, identifier]) => identifier);

function setup(client: Cluster) {
  const prefix = `idt-${randomUUID().slice(0, 8)}`;
  const engine = new SluiceEngine({
    // Minute-long windows that cannot roll over mid-test (test/support/minute.clock.ts).
    store: new RedisStore(client, { clock: minuteClock() }),
    prefix,
    policies: [
      { name: 'one', algorithm: 'fixed-window', limit: 1, periodMs: 60_000 },
      { name: 'log', algorithm: 'sliding-log', limit: 3, periodMs: 60_000 },
      {
        name: 'pen',
        algorithm: 'gcra',
        limit: 2,
        periodMs: 60_000,
        penalty: { afterViolations: 1, blockMs: 60_000 },
      },
    ],
  });
  return { engine, prefix };
}

/** Every key under `prefix` on every master, with the master it lives on. */
async function keysOnMasters(prefix: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const masters = cluster.nodes('master');
  await Promise.all(
    masters.map(async (master, index) => {
      let cursor = '0';
      do {
        const [next, batch] = await master.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        for (const key of batch) found.set(key, index);
        cursor = next;
      } while (cursor !== '0');
    }),
  );
  return found;
}

async function keyslot(key: string): Promise<number> {
  return Number(await cluster.cluster('KEYSLOT', key));
}

async function removeKeys(prefix: string): Promise<void> {
  const keys = await keysOnMasters(prefix);
  await Promise.all([...keys.keys()].map((key) => cluster.del(key)));
}

describe('hostile identifiers on a 3-master Redis Cluster', () => {
  it('the empty string is refused with InvalidIdentifierError, before any Redis call', async () => {
    const { engine, prefix } = setup(cluster);
    for (const call of [
      () => engine.consume('one', ''),
      () => engine.peek('one', ''),
      () => engine.refund('one', ''),
      () => engine.reset('one', ''),
      () => engine.block('one', '', 1000),
      () => engine.unblock('one', ''),
    ]) {
      let thrown: unknown;
      try {
        await call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidIdentifierError);
      expect((thrown as Error).message).toMatch(/identifier.*empty/);
    }
    expect((await keysOnMasters(prefix)).size).toBe(0);
  });

  it('a non-string identifier is refused with InvalidIdentifierError', async () => {
    const { engine } = setup(cluster);
    for (const bad of [undefined, null, 42, { id: 1 }, ['a']]) {
      await expect(engine.consume('one', bad as unknown as string)).rejects.toBeInstanceOf(
        InvalidIdentifierError,
      );
    }
  });

  it.each(HOSTILE)(
    '%s: consume, peek, block, unblock work and keys stay in one slot',
    async (_, identifier) => {
      const { engine, prefix } = setup(cluster);
      const stored = toIdentifier(identifier);
      const base = identifierKey(prefix, 'user', stored);

      // hashing: what must be hashed is, what needn't be isn't
      const mustHash =
        identifier.length > 128 || UNSAFE.test(identifier) || identifier.startsWith('#h:');
      expect(stored.hashed).toBe(mustHash);
      expect(stored.display).toBe(identifier.slice(0, 256));

      const first = await engine.consume(['one', 'log', 'pen'], identifier);
      expect(first.allowed).toBe(true);
      const second = await engine.consume('one', identifier);
      expect(second.allowed).toBe(false);
      expect(second.reason).toBe('limit');
      expect((await engine.peek('log', identifier)).remaining).toBe(2);
      const blocked = await engine.block('log', identifier, 60_000);
      expect(blocked.untilMs).toBeGreaterThan(Date.now() - 5_000);
      expect((await engine.consume('log', identifier)).reason).toBe('blocked');
      // a rejection under a penalty policy writes its :p key too
      await engine.consume('pen', identifier);
      expect((await engine.consume('pen', identifier)).allowed).toBe(false);
      expect(await engine.unblock('log', identifier)).toBe(true);
      expect((await engine.consume('log', identifier)).allowed).toBe(true);

      const keys = await keysOnMasters(prefix);
      expect([...keys.keys()].sort()).toEqual(
        // log's :p went with the unblock: a lifted block without offences is a fresh state
        [`${base}:one:fw`, `${base}:log:sl`, `${base}:pen:gc`, `${base}:pen:p`].sort(),
      );
      const slots = new Set<number>();
      const masters = new Set<number>();
      for (const [key, master] of keys) {
        // exactly one hash tag: one '{', one '}', in that order, around `<keyKind>:<identifier>`
        expect(key.split('{')).toHaveLength(2);
        expect(key.split('}')).toHaveLength(2);
        expect(key.indexOf('{')).toBeLessThan(key.indexOf('}'));
        expect(key.slice(key.indexOf('{') + 1, key.indexOf('}'))).toBe(`user:${stored.stored}`);
        // no raw control characters or whitespace in a key
        expect(key).not.toMatch(UNSAFE_IN_KEY);
        expect(key.length).toBeLessThan(200);
        slots.add(await keyslot(key));
        masters.add(master);
      }
      expect(slots.size).toBe(1);
      expect([...slots][0]).toBe(await keyslot(`{user:${stored.stored}}`));
      expect(masters.size).toBe(1);
      await removeKeys(prefix);
    },
  );

  it('distinct hostile identifiers never share counters', async () => {
    const { engine, prefix } = setup(cluster);
    // identifiers built to collide if hashing or truncation were careless
    const tricky = [
      ...ALL,
      toIdentifier('{').stored, // the digest '{' is stored under, as a raw identifier
      toIdentifier('x'.repeat(TEN_KB)).stored,
      `#h:${toIdentifier('{abc}').stored.slice(3)}`,
      'x'.repeat(TEN_KB + 1),
      `${'x'.repeat(256)}a`, // same display (first 256) as the next
      `${'x'.repeat(256)}b`,
      'a b',
      'a\tb',
      'a\u00a0b',
      'a\u2028b',
      '{abc',
      'abc}',
      'abc',
      ' ',
      '  ',
      '\n',
    ];
    const identifiers = [...new Set(tricky)];
    const stored = identifiers.map((identifier) => toIdentifier(identifier).stored);
    expect(new Set(stored).size, 'stored forms collide').toBe(identifiers.length);

    // each may spend its one request, whatever the others did
    const decisions = await Promise.all(
      identifiers.map((identifier) => engine.consume('one', identifier)),
    );
    const refusedFirst = identifiers.filter((_, index) => !decisions[index]?.allowed);
    expect(refusedFirst.map((identifier) => JSON.stringify(identifier).slice(0, 60))).toEqual([]);
    const again = await Promise.all(
      identifiers.map((identifier) => engine.consume('one', identifier)),
    );
    expect(again.every((decision) => !decision.allowed)).toBe(true);

    const keys = await keysOnMasters(prefix);
    expect(keys.size).toBe(identifiers.length);
    await removeKeys(prefix);
  });

  it('lone UTF-16 surrogates are refused: UTF-8 would turn each into U+FFFD and merge them', async () => {
    const { engine, prefix } = setup(cluster);
    for (const identifier of ['\ud800', '\udbff', '\udc00', `user\ud83d`, `user\ude00`]) {
      await expect(engine.consume('one', identifier)).rejects.toThrow(InvalidIdentifierError);
      await expect(engine.consume('one', identifier)).rejects.toThrow(
        /identifier: .*lone surrogate/,
      );
    }
    // A paired surrogate (an emoji) and U+FFFD itself are ordinary identifiers.
    expect((await engine.consume('one', 'user\ud83d\ude00')).allowed).toBe(true);
    expect((await engine.consume('one', '\ufffd')).allowed).toBe(true);
    expect((await keysOnMasters(prefix)).size).toBe(2);
    await removeKeys(prefix);
  });

  it('10 000 identifiers spread over every master', async () => {
    const { engine, prefix } = setup(cluster);
    const count = 10_000;
    const inFlight = 200;
    let next = 0;
    let admitted = 0;
    const worker = async () => {
      while (next < count) {
        const identifier = `member-${next++}`;
        // A sliding log's key lives 60 s from its request; a fixed window's would all end at the
        // next minute's start, and a run crossing it would find the earlier keys gone.
        if ((await engine.consume('log', identifier)).allowed) admitted += 1;
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const elapsed = Date.now() - started;
    expect(admitted).toBe(count);

    const keys = await keysOnMasters(prefix);
    expect(keys.size).toBe(count);
    const perMaster = new Map<number, number>();
    for (const master of keys.values()) perMaster.set(master, (perMaster.get(master) ?? 0) + 1);
    const masters = cluster.nodes('master').length;
    expect(masters).toBeGreaterThanOrEqual(3);
    expect(perMaster.size).toBe(masters);
    for (const [master, held] of perMaster) {
      expect(
        held / count,
        `master ${master} holds ${held} of ${count} keys`,
      ).toBeGreaterThanOrEqual(0.2);
    }
    expect(elapsed).toBeLessThan(15_000);
    await removeKeys(prefix);
  });
});
