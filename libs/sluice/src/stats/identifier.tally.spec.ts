import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { decisionOf as decision, partDecision } from '../testing/decision.fixture.js';
import { storedForm } from '../keys/identifier.js';
import { IdentifierTally } from './identifier.tally.js';
import type { IdentifierCount, IdentifierStatsStore } from './identifier-stats.store.js';
import { LocalIdentifierStats } from './local-identifier.stats.js';

/** What each flush handed the store, as the store was given it. */
class SentCounts extends LocalIdentifierStats implements IdentifierStatsStore {
  readonly flushes: IdentifierCount[][] = [];

  override add(counts: readonly IdentifierCount[]): Promise<void> {
    this.flushes.push(counts.map((count) => ({ ...count })));
    return super.add(counts);
  }
}

/** A gcra policy's part: the tally does not read the algorithm. */
const partGcra = (policy: string, allowed: boolean) =>
  partDecision(policy, allowed, { algorithm: 'gcra' });

function setUp() {
  const clock = new ManualClock();
  const store = new SentCounts(clock.now);
  const tally = new IdentifierTally(store, clock.now);
  return { clock, store, tally };
}

describe('IdentifierTally', () => {
  it('sends what each identifier did since the last flush, and nothing for a quiet second', async () => {
    const { store, tally } = setUp();
    for (let i = 0; i < 3; i++) tally.count(decision(partGcra('api', true)), 'ip', '10.0.0.1');
    tally.count(decision(partGcra('api', false)), 'ip', '10.0.0.1');
    tally.count(decision(partGcra('api', true)), 'ip', '10.0.0.2');
    await tally.flush();
    tally.count(decision(partGcra('api', true)), 'ip', '10.0.0.1');
    await tally.flush();
    await tally.flush();

    expect(
      store.flushes.map((sent) =>
        sent.map((each) => [each.identifier, each.passed, each.rejected]),
      ),
    ).toEqual([
      [
        ['10.0.0.1', 3, 1],
        ['10.0.0.2', 1, 0],
      ],
      [['10.0.0.1', 1, 0]],
    ]);
    const totals = await store.read('api');
    expect(totals.map((each) => [each.identifier, each.passed, each.rejected])).toEqual([
      ['10.0.0.1', 4, 1],
      ['10.0.0.2', 1, 0],
    ]);
  });

  it('sends the 100 busiest of each policy, rejections first, then passes', async () => {
    const { store, tally } = setUp();
    for (let n = 0; n < 300; n++) {
      for (let i = 0; i < n % 150; i++)
        tally.count(decision(partGcra('api', true)), 'user', `u${n}`);
    }
    tally.count(decision(partGcra('api', false)), 'user', 'u0');
    tally.count(decision(partGcra('other', true)), 'user', 'u0');
    await tally.flush();

    const [sent] = store.flushes;
    const api = sent!.filter((each) => each.policy === 'api');
    expect(api).toHaveLength(100);
    expect(api[0]).toMatchObject({ identifier: 'u0', passed: 0, rejected: 1 });
    // u149 and u299 counted 149 passes each, the most; then 148, and so on down to 100.
    expect(api.slice(1).map((each) => each.passed)).toEqual(
      Array.from({ length: 99 }, (_, i) => 149 - Math.floor(i / 2)),
    );
    expect(sent!.filter((each) => each.policy === 'other')).toEqual([
      expect.objectContaining({ identifier: 'u0', passed: 1, rejected: 0 }),
    ]);
  });

  it('counts a refused request only under the policies that refused it', async () => {
    const { store, tally } = setUp();
    tally.count(decision(partGcra('burst', true), partGcra('daily', false)), 'ip', '10.0.0.1');
    await tally.flush();
    expect(store.flushes[0]).toEqual([
      expect.objectContaining({ policy: 'daily', identifier: '10.0.0.1', passed: 0, rejected: 1 }),
    ]);
  });

  it('names an identifier over 256 characters by its stored key, shown cut', async () => {
    const { store, tally } = setUp();
    const long = 'x'.repeat(300);
    tally.count(decision(partGcra('api', true)), 'header:x-user', long);
    tally.count(decision(partGcra('api', true)), 'header:x-user', long);
    await tally.flush();
    expect(store.flushes[0]).toEqual([
      expect.objectContaining({ identifier: 'x'.repeat(256), key: storedForm(long), passed: 2 }),
    ]);
  });

  it('counts up to 50 000 new identifiers a second, every second', async () => {
    const { store, tally } = setUp();
    for (let n = 0; n < 50_000; n++) tally.count(decision(partGcra('api', true)), 'ip', `a${n}`);
    // One more in the same second is left out, however often it comes.
    for (let i = 0; i < 3; i++) tally.count(decision(partGcra('api', true)), 'ip', 'late');
    await tally.flush();
    // The next seconds bring 50 000 others each, every one counted.
    for (const letter of ['b', 'c']) {
      for (let n = 0; n < 50_000; n++) {
        tally.count(decision(partGcra('api', true)), 'ip', `${letter}${n}`);
        if (n === 49_999) tally.count(decision(partGcra('api', false)), 'ip', `${letter}${n}`);
      }
      await tally.flush();
    }

    expect(store.flushes.map((sent) => sent.length)).toEqual([100, 100, 100]);
    expect(store.flushes[0]!.every((each) => each.passed === 1)).toBe(true);
    expect(store.flushes[1]![0]).toMatchObject({ identifier: 'b49999', passed: 1, rejected: 1 });
    expect(store.flushes[2]![0]).toMatchObject({ identifier: 'c49999', passed: 1, rejected: 1 });
  });

  it('keeps counting an identifier that comes back after idle seconds', async () => {
    const { store, tally } = setUp();
    tally.count(decision(partGcra('api', true)), 'ip', '10.0.0.1');
    await tally.flush();
    for (let second = 0; second < 6; second++) await tally.flush();
    tally.count(decision(partGcra('api', false)), 'ip', '10.0.0.1');
    await tally.flush();
    expect(store.flushes.map((sent) => sent.map((each) => [each.passed, each.rejected]))).toEqual([
      [[1, 0]],
      [[0, 1]],
    ]);
  });
});
