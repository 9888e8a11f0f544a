import { describe, expect, it } from 'vitest';
import { memberOf, parseMember } from './identifier-stats.store.js';

describe('identifier stats members', () => {
  it('read back as written, with or without a key, whatever the identifier holds', () => {
    const key = `#h:${'k'.repeat(43)}`;
    for (const count of [
      { keyKind: 'ip', identifier: '203.0.113.7' },
      { keyKind: 'user', identifier: 'a\u0000b' },
      { keyKind: 'header:authorization', identifier: 'eyJ'.padEnd(256, 'x'), key },
      { keyKind: 'user', identifier: '\u0000', key },
    ]) {
      expect(parseMember(memberOf(count))).toEqual(count);
    }
  });

  it('refuses members that name no identifier', () => {
    for (const member of [
      '',
      'ip',
      '\u0000x',
      'ip\u0000',
      'ip\u0000\u0000#h:k',
      'ip\u0000\u0000#h:k\u0000',
    ]) {
      expect(parseMember(member)).toBeNull();
    }
  });
});
