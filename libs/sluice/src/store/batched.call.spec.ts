import { describe, expect, it } from 'vitest';
import { repliesOf, scriptCall } from './batched.call.js';

const GCRA = 'api gc 100 60000 - - - e 1';
const DAILY = 'daily fw 1000 86400000 - - - e 1';

describe('scriptCall', () => {
  it('sends one call as operate takes it, arguments as they are', () => {
    expect(scriptCall([{ key: 'k1', args: ['consume', '', '', GCRA] }])).toEqual({
      script: 'one',
      keys: 1,
      keysAndArgs: ['k1', 'consume', '', '', GCRA],
    });
  });

  it('sends each distinct spec of a batch once, and one word per call naming them', () => {
    const sent = scriptCall([
      { key: 'k1', args: ['consume', '', '', GCRA] },
      { key: 'k2', args: ['consume', '', '', GCRA, DAILY] },
      { key: 'k3', args: ['block', '1700000000000000', '60000', DAILY] },
      { key: 'k4', args: ['release', '', 'a1.7', GCRA] },
    ]);
    expect(sent).toEqual({
      script: 'many',
      keys: 4,
      keysAndArgs: [
        'k1',
        'k2',
        'k3',
        'k4',
        '2',
        GCRA,
        DAILY,
        'consume - - 1',
        'consume - - 1 2',
        'block 1700000000000000 60000 2',
        'release - a1.7 1',
      ],
    });
  });
});

describe('repliesOf', () => {
  it("gives each call its reply, and one call's error as an Error of its own", () => {
    const replies = repliesOf(
      [
        { key: 'k1', args: [] },
        { key: 'k2', args: [] },
      ],
      [[1, 1, 0, 9, 100, 0, 0, 0, 0, 0], '!ERR sluice: unknown operation x'],
    );
    expect(replies[0]).toEqual([1, 1, 0, 9, 100, 0, 0, 0, 0, 0]);
    expect(replies[1]).toBeInstanceOf(Error);
    expect((replies[1] as Error).message).toBe('ERR sluice: unknown operation x');
  });

  it('reads two integers in a row as one call’s short admission', () => {
    const calls = [1, 2, 3].map((n) => ({ key: `k${n}`, args: [] }));
    const full = [0, 0, 1, 0, 100, 100, 0, 0, 0, 0, 0];
    expect(repliesOf(calls, [9, 100, full, 8, 250])).toEqual([[9, 100], full, [8, 250]]);
    expect(() => repliesOf(calls, [9, 100, 8, 250])).toThrow(/unexpected reply/);
  });

  it('refuses a reply that does not hold one answer per call', () => {
    expect(() =>
      repliesOf(
        [
          { key: 'k1', args: [] },
          { key: 'k2', args: [] },
        ],
        [[1]],
      ),
    ).toThrow(/unexpected reply/);
  });
});
