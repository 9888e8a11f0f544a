import { describe, expect, it } from 'vitest';
import { planText } from './plan.printer.js';

describe('what sluice diff prints', () => {
  it('marks each change and shows each field before and after', () => {
    const text = planText(
      {
        version: 12,
        foreign: false,
        conflicts: [],
        changes: [
          {
            kind: 'policy',
            action: 'update',
            target: 'reply',
            fields: [{ field: 'limit', before: 3, after: 5 }],
          },
          {
            kind: 'policy',
            action: 'create',
            target: 'search',
            fields: [{ field: 'algorithm', before: null, after: 'gcra' }],
          },
          { kind: 'policy', action: 'revert', target: 'browse', fields: [] },
          { kind: 'list', action: 'delete', target: 'deny address 203.0.113.7', fields: [] },
        ],
      },
      10,
    );
    expect(text).toBe(
      [
        '~ policy reply',
        '    limit: 3 -> 5',
        '+ policy search',
        '    algorithm: "gcra"',
        '< policy browse (returns to its code default)',
        '- list deny address 203.0.113.7 (deleted)',
        '4 changes to apply (the admin is at version 12).',
        '',
      ].join('\n'),
    );
  });

  it('says what applying would overwrite, and when the file comes from another admin', () => {
    const text = planText(
      {
        version: 40,
        foreign: true,
        changes: [],
        conflicts: [
          {
            action: 'policy.replace',
            target: 'reply',
            actor: 'olga',
            version: 31,
            at: '2026-11-28T09:00:00.000Z',
          },
        ],
      },
      50,
    );
    expect(text).toContain('No changes');
    expect(text).toContain("The file's version 50 is ahead of this admin's");
    expect(text).toContain(
      '  policy.replace reply by olga at version 31 (2026-11-28T09:00:00.000Z)',
    );
  });
});
