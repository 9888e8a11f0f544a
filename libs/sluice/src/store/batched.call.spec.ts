import { describe, expect, it } from 'vitest';
import { resultsOf, scriptCall } from './batched.call.js';
import { quiet } from './decide.js';
import type { StoreResult } from './store.types.js';

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

  it('sends the word once when every call of the batch has it', () => {
    const sent = scriptCall([
      { key: 'k1', args: ['consume', '', '', GCRA] },
      { key: 'k2', args: ['consume', '', '', GCRA] },
      { key: 'k3', args: ['consume', '', '', GCRA] },
    ]);
    expect(sent.keysAndArgs).toEqual(['k1', 'k2', 'k3', '1', GCRA, 'consume - - 1']);
    // One call that differs, even the last, and each call has its own word again.
    const mixed = scriptCall([
      { key: 'k1', args: ['consume', '', '', GCRA] },
      { key: 'k2', args: ['peek', '', '', GCRA] },
    ]);
    expect(mixed.keysAndArgs).toEqual(['k1', 'k2', '1', GCRA, 'consume - - 1', 'peek - - 1']);
  });
});

describe('resultsOf', () => {
  const consume = (key: string, specs = [GCRA]) => ({ key, args: ['consume', '', '', ...specs] });

  it("decodes each call's result, and one call's error as an Error of its own", () => {
    const results = resultsOf(
      [consume('k1'), consume('k2')],
      [[1, 1, 0, 9, 100, 0, 0, 0, 0, 0, 0], '!ERR sluice: unknown operation x'],
    );
    expect(results[0]).toMatchObject({ admitted: true, outcomes: [{ remaining: 9, reset: 100 }] });
    expect(results[1]).toBeInstanceOf(Error);
    expect((results[1] as Error).message).toBe('ERR sluice: unknown operation x');
  });

  it('reads two integers in a row as one call’s short admission', () => {
    const full = [0, 0, 1, 0, 100, 100, 0, 0, 0, 0, 0];
    const results = resultsOf(
      [consume('k1'), consume('k2'), consume('k3')],
      [9, 100, full, 8, 250],
    );
    expect(results.map((each) => (each as StoreResult).admitted)).toEqual([true, false, true]);
    expect((results[0] as StoreResult).outcomes[0]).toEqual({
      ...quiet(),
      remaining: 9,
      reset: 100,
    });
    expect((results[2] as StoreResult).outcomes[0]).toMatchObject({ remaining: 8, reset: 250 });
    expect((results[1] as StoreResult).outcomes[0]).toMatchObject({
      allowed: false,
      reason: 'limit',
    });
  });

  it('fails only the call whose answer does not read', () => {
    const results = resultsOf([consume('k1', [GCRA, DAILY]), consume('k2')], [9, 100, 8, 250]);
    expect(results[0]).toBeInstanceOf(Error);
    expect((results[0] as Error).message).toMatch(/unexpected reply from Redis: \[9,100\]/);
    expect((results[1] as StoreResult).outcomes[0]).toMatchObject({ remaining: 8 });
  });

  it("gives a grant's result its quota", () => {
    const [granted] = resultsOf(
      [{ key: 'k1', args: ['grant', '', '5', DAILY] }],
      [1, 1, 0, 995, 100, 12, 0, 0, 0, 0, 5],
    );
    expect((granted as StoreResult).outcomes[0]).toMatchObject({
      quota: { used: 12, granted: 5 },
      retry: 0,
    });
  });

  it('refuses a reply that does not hold one answer per call', () => {
    expect(() => resultsOf([consume('k1'), consume('k2')], [[1]])).toThrow(/unexpected reply/);
    expect(() => resultsOf([consume('k1'), consume('k2')], [9, 100, 8, 250, 7, 1])).toThrow(
      /unexpected reply/,
    );
    expect(() => resultsOf([consume('k1'), consume('k2')], 'OK')).toThrow(/unexpected reply/);
  });
});
