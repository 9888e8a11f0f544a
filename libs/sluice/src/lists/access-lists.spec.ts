import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { MemoryStore } from '../store/memory.store.js';
import type { SluiceStore } from '../store/store.types.js';
import { AccessLists } from './access-lists.js';
import { listEntryInputSchema, MAX_LIST_ENTRIES, type ListEntry } from './list-entry.schema.js';

const NOW_MS = 1_800_000_000_000;
const rule = { algorithm: 'fixed-window', periodMs: 60_000, limit: 2 } as const;

function entry(fields: Partial<ListEntry> & Pick<ListEntry, 'id' | 'kind' | 'value'>): ListEntry {
  return {
    list: 'deny',
    keyKind: fields.kind === 'identifier' ? 'user' : null,
    prefix: false,
    policies: null,
    mode: 'enforce',
    reason: 'abuse',
    expiresAt: null,
    createdBy: 'ops',
    createdAt: new Date(NOW_MS).toISOString(),
    ...fields,
  };
}

/** An engine over the memory store that counts its store calls: a listed decision makes none. */
function engine(entries: ListEntry[]) {
  const clock = new ManualClock(NOW_MS * 1000);
  const memory = new MemoryStore({ clock: () => clock.now() });
  let calls = 0;
  const store: SluiceStore = {
    run: (call) => {
      calls++;
      return memory.run(call);
    },
  };
  const sluice = new SluiceEngine({
    store,
    clock: clock.now,
    policies: [
      { ...rule, name: 'by-ip', key: 'ip' },
      { ...rule, name: 'by-user', key: 'user' },
      { ...rule, name: 'dry', key: 'user', mode: 'shadow' },
    ],
  });
  expect(sluice.lists.replace(entries)).toEqual([]);
  return { sluice, calls: () => calls, clock };
}

describe('allow and deny lists', () => {
  it('refuses a denied address range without a store call, and counts the match', async () => {
    const { sluice, calls } = engine([
      entry({ id: 'd1', kind: 'address', value: '203.0.113.0/24' }),
    ]);
    const decision = await sluice.consume('by-ip', '203.0.113.9', {
      client: { address: '203.0.113.9' },
    });
    expect(decision).toMatchObject({
      allowed: false,
      reason: 'denylist',
      listEntry: { id: 'd1', list: 'deny' },
      retryAfterMs: 60_000,
    });
    expect(calls()).toBe(0);
    expect(
      await sluice.consume('by-ip', '198.51.100.1', { client: { address: '198.51.100.1' } }),
    ).toMatchObject({ allowed: true, reason: 'ok' });
    expect(calls()).toBe(1);
    expect(sluice.lists.takeHits()).toEqual(new Map([['d1', { enforced: 1, shadow: 0 }]]));
  });

  it('matches CIDR edges: an IPv4 range holds the v4-mapped IPv6 form, /0 holds every v4, /128 one v6', () => {
    const lists = new AccessLists();
    lists.replace([
      entry({ id: 'v4', kind: 'address', value: '10.0.0.0/8', policies: ['a'] }),
      entry({ id: 'all', kind: 'address', value: '0.0.0.0/0', policies: ['b'] }),
      entry({ id: 'one', kind: 'address', value: '2001:db8::1/128', policies: ['c'] }),
    ]);
    const policy = (name: string) => ({ ...rule, name }) as never;
    const [a, b, c] = [policy('a'), policy('b'), policy('c')];
    const at = (address: string) =>
      [
        ...(lists
          .decide([a, b, c], { keyKind: 'ip', identifier: address, address }, NOW_MS)
          ?.values() ?? []),
      ].map((each) => each.id);
    expect(at('::ffff:10.1.2.3')).toEqual(['v4', 'all']);
    expect(at('11.0.0.1')).toEqual(['all']);
    expect(at('2001:db8::1')).toEqual(['one']);
    expect(at('2001:db8::2')).toEqual([]);
    expect(at('not an address')).toEqual([]);
  });

  it('lets an allowed identifier skip the policies it names, for its key kind alone', async () => {
    const allow = entry({
      id: 'a1',
      list: 'allow',
      kind: 'identifier',
      value: 'partner-',
      prefix: true,
      policies: ['by-user'],
    });
    const { sluice, calls } = engine([allow]);
    for (let i = 0; i < 5; i++) {
      expect(await sluice.consume('by-user', 'partner-7')).toMatchObject({
        allowed: true,
        listEntry: { id: 'a1', list: 'allow' },
      });
    }
    expect(calls()).toBe(0);
    // The same text counted as an address is not the identifier the entry was written for.
    await sluice.consume('by-ip', 'partner-7');
    await sluice.consume('by-ip', 'partner-7');
    expect(await sluice.consume('by-ip', 'partner-7')).toMatchObject({
      allowed: false,
      reason: 'limit',
    });
    expect((await sluice.consume('by-user', 'someone')).listEntry).toBeUndefined();
  });

  it('lets deny win over allow, and counts each request once, under the entry that decided it', async () => {
    const { sluice } = engine([
      entry({ id: 'allow', list: 'allow', kind: 'identifier', value: 'eve' }),
      entry({ id: 'deny', kind: 'userAgent', value: 'badbot' }),
      entry({ id: 'watch', kind: 'identifier', value: 'eve', mode: 'shadow' }),
    ]);
    const denied = await sluice.consume('by-user', 'eve', {
      client: { userAgent: 'Mozilla BadBot/2' },
    });
    expect(denied).toMatchObject({ allowed: false, listEntry: { id: 'deny' } });
    const allowed = await sluice.consume('by-user', 'eve', { client: { userAgent: 'curl/8' } });
    expect(allowed).toMatchObject({ allowed: true, listEntry: { id: 'allow' } });
    // The shadow entry decided neither request: the enforced ones did.
    expect(sluice.lists.takeHits()).toEqual(
      new Map([
        ['deny', { enforced: 1, shadow: 0 }],
        ['allow', { enforced: 1, shadow: 0 }],
      ]),
    );
    // Alone, a shadow entry counts what it would have decided: deny before allow.
    const watched = engine([
      entry({ id: 'let', list: 'allow', kind: 'identifier', value: 'eve', mode: 'shadow' }),
      entry({ id: 'stop', kind: 'identifier', value: 'eve', mode: 'shadow' }),
    ]);
    for (let i = 0; i < 3; i++) await watched.sluice.consume('by-user', 'eve');
    expect(watched.sluice.lists.takeHits()).toEqual(
      new Map([['stop', { enforced: 0, shadow: 3 }]]),
    );
  });

  it('stops applying an entry when it expires, and a shadow policy only says it would refuse', async () => {
    const expiresAt = new Date(NOW_MS + 30_000).toISOString();
    const { sluice, clock } = engine([
      entry({ id: 'd', kind: 'identifier', value: 'mallory', expiresAt }),
    ]);
    expect(await sluice.consume('by-user', 'mallory')).toMatchObject({
      allowed: false,
      retryAfterMs: 30_000,
    });
    expect(await sluice.consume('dry', 'mallory')).toMatchObject({
      allowed: true,
      reason: 'shadow',
    });
    clock.advance(30_000_000);
    expect(await sluice.consume('by-user', 'mallory')).toMatchObject({
      allowed: true,
      reason: 'ok',
    });
  });

  it('holds at most MAX_LIST_ENTRIES and names each entry it cannot read', () => {
    const lists = new AccessLists();
    const many = Array.from({ length: MAX_LIST_ENTRIES + 2 }, (_, index) =>
      entry({ id: `e${index}`, kind: 'identifier', value: `user-${index}` }),
    );
    expect(lists.replace([{ ...many[0], kind: 'address', value: '10.0.0.0/33' }, ...many])).toEqual(
      [
        'list entry e0: value must be an IP address or a CIDR range (203.0.113.0/24, 2001:db8::/32)',
        `2 list entries past the ${MAX_LIST_ENTRIES} held`,
      ],
    );
    expect(lists.size).toBe(MAX_LIST_ENTRIES);
  });

  it('names the field of a bad entry as an operator writes it', () => {
    const problems = (body: object) =>
      listEntryInputSchema
        .safeParse(body)
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(problems({ list: 'deny', kind: 'identifier', value: 'x', reason: 'r' })).toEqual([
      'keyKind: must name the kind of identifier the entry is for',
    ]);
    expect(problems({ list: 'deny', kind: 'userAgent', value: '(?=x)', reason: 'r' })?.[0]).toMatch(
      /^value: must be a regular expression RE2/,
    );
    expect(problems({ list: 'deny', kind: 'address', value: '10.0.0.1', reason: ' ' })).toEqual([
      'reason: must say why the entry is there',
    ]);
    expect(
      problems({ list: 'deny', kind: 'address', value: '10.0.0.1', prefix: true, reason: 'r' }),
    ).toEqual(['prefix: applies to identifier entries only']);
    expect(
      problems({ list: 'maybe', kind: 'address', value: '10.0.0.1', reason: 'r', policies: [] }),
    ).toEqual([
      "list: must be 'allow' or 'deny'",
      'policies: must name at least one policy, or be null for every policy',
    ]);
  });

  it("never reaches Sluice's own policies: the admin's sign-in limits stay the admin's", async () => {
    const { sluice } = engine([
      entry({ id: 'all', kind: 'address', value: '0.0.0.0/0' }),
      entry({ id: 'v6', kind: 'address', value: '::/0' }),
      entry({ id: 'ip', kind: 'identifier', keyKind: 'ip', value: '1', prefix: true }),
    ]);
    sluice.policies.set({ ...rule, name: 'sluice-admin.sign-in-attempts', key: 'ip' });
    const client = { address: '127.0.0.1' };
    const own = await sluice.consume('sluice-admin.sign-in-attempts', '127.0.0.1', { client });
    expect(own).toMatchObject({ allowed: true, reason: 'ok' });
    expect(own.listEntry).toBeUndefined();
    // The app's own policies are denied by the same entries.
    expect(await sluice.consume('by-ip', '127.0.0.1', { client })).toMatchObject({
      allowed: false,
      reason: 'denylist',
    });
  });

  it('leaves out entries expired when a snapshot is applied: they count towards no bound', () => {
    const lists = new AccessLists();
    const expired = entry({
      id: 'old',
      kind: 'identifier',
      value: 'gone',
      expiresAt: new Date(NOW_MS - 1).toISOString(),
    });
    const inForce = Array.from({ length: MAX_LIST_ENTRIES }, (_, index) =>
      entry({ id: `e${index}`, kind: 'identifier', value: `user-${index}` }),
    );
    expect(lists.replace([expired, ...inForce], NOW_MS)).toEqual([]);
    expect(lists.size).toBe(MAX_LIST_ENTRIES);
    expect(lists.entries().some((each) => each.id === 'old')).toBe(false);
    expect(lists.entries().at(-1)?.id).toBe(`e${MAX_LIST_ENTRIES - 1}`);
  });

  it('matches an entry naming a header in any case: headers are counted in lower case', async () => {
    const parsed = listEntryInputSchema.parse({
      list: 'deny',
      kind: 'identifier',
      keyKind: 'header:X-API-Key',
      value: 'leaked',
      reason: 'a leaked key',
    });
    expect(parsed.keyKind).toBe('header:x-api-key');
    const { sluice } = engine([entry({ id: 'key', ...parsed, keyKind: parsed.keyKind ?? null })]);
    sluice.policies.set({ ...rule, name: 'by-key', key: 'header:X-Api-Key' });
    expect(await sluice.consume('by-key', 'leaked')).toMatchObject({ reason: 'denylist' });
    expect(await sluice.consume('by-key', 'leaked', { keyKind: 'header:x-API-key' })).toMatchObject(
      {
        reason: 'denylist',
      },
    );
  });
});
