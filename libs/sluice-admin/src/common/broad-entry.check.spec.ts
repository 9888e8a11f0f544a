import { describe, expect, it } from 'vitest';
import type { Actor } from './actor.js';
import { broadReach } from './broad-entry.check.js';
import type { ListEntryBody } from '../lists/list-body.schema.js';

const operator: Actor = {
  name: 'olga',
  role: 'operator',
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
};

const deny = (fields: Partial<ListEntryBody>): ListEntryBody => ({
  list: 'deny',
  kind: 'address',
  value: '198.51.100.0/24',
  reason: 'abuse',
  ...fields,
});

describe('an entry whose reach needs confirming', () => {
  it('is one that holds every address of a family, on either list', () => {
    expect(broadReach(deny({ value: '0.0.0.0/0' }), operator)).toMatch(/would deny all traffic/);
    expect(broadReach(deny({ value: '::/0' }), operator)).toMatch(/would deny all traffic/);
    expect(broadReach(deny({ list: 'allow', value: '0.0.0.0/0' }), operator)).toMatch(
      /would allow all traffic/,
    );
  });

  it("is a deny entry holding the operator's own address, by range or as an identifier", () => {
    expect(broadReach(deny({ value: '203.0.113.0/24' }), operator)).toMatch(
      /holds your own address \(203\.0\.113\.7\)/,
    );
    expect(
      broadReach(deny({ kind: 'identifier', keyKind: 'ip', value: '203.0.113.7' }), operator),
    ).toMatch(/your own address/);
    expect(
      broadReach(
        deny({ kind: 'identifier', keyKind: 'ip', value: '203.0.', prefix: true }),
        operator,
      ),
    ).toMatch(/your own address/);
    // Allowing oneself needs no second look.
    expect(broadReach(deny({ list: 'allow', value: '203.0.113.0/24' }), operator)).toBeUndefined();
  });

  it('is a User-Agent pattern that matches any, or the operator’s own', () => {
    for (const value of ['^', '.*', '$']) {
      expect(broadReach(deny({ kind: 'userAgent', value }), operator)).toMatch(
        /matches every User-Agent/,
      );
    }
    expect(broadReach(deny({ kind: 'userAgent', value: 'firefox' }), operator)).toMatch(
      /matches your own User-Agent/,
    );
    expect(broadReach(deny({ kind: 'userAgent', value: '^curl/' }), operator)).toBeUndefined();
  });

  it('is never a shadow entry, nor an ordinary one', () => {
    expect(broadReach(deny({ value: '0.0.0.0/0', mode: 'shadow' }), operator)).toBeUndefined();
    expect(broadReach(deny({}), operator)).toBeUndefined();
    expect(
      broadReach(deny({ kind: 'identifier', keyKind: 'user', value: 'olga' }), operator),
    ).toBeUndefined();
  });
});
