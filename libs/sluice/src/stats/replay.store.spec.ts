import { describe, expect, it } from 'vitest';
import { LocalReplayStore } from './local-replay.store.js';
import {
  batchOf,
  packRecords,
  unpackRecordLines,
  unpackRecords,
  type ReplayRecord,
} from './replay.store.js';

const at = (seconds: number) => 1_800_000_000_000_000 + seconds * 1_000_000;

describe('the replay record', () => {
  it('reads back as packed, from a time on, each identifier written once', () => {
    const records: ReplayRecord[] = [
      { member: 'ip\u000010.0.0.1', tier: '', atUs: at(0), live: 'a' },
      { member: 'user\u0000ann:1', tier: 'pro', atUs: at(1), live: 'n' },
      { member: 'ip\u000010.0.0.1', tier: '', atUs: at(1) + 7, live: 'r' },
      // The same member under another tier is another line of its own.
      { member: 'ip\u000010.0.0.1', tier: 'pro', atUs: at(2), live: 'a' },
      // Out of order by a few µs, as two requests' clocks may be.
      { member: 'user\u0000ann:1', tier: 'pro', atUs: at(0) - 3, live: 'a' },
    ];
    const text = packRecords(batchOf(records));
    expect(text.split('\n').filter((line) => line.includes('10.0.0.1'))).toHaveLength(2);
    const all: ReplayRecord[] = [];
    unpackRecords(text, 0, all);
    expect(all).toEqual(records);
    const read: ReplayRecord[] = [];
    unpackRecords(text, at(1), read);
    expect(read).toEqual(records.slice(1, 4));
    expect(packRecords(batchOf([]))).toBe('');
    // A piece of a batch names only its own identifiers.
    expect(packRecords(batchOf(records), 1, 2).split('\n')).toEqual([
      `${at(1)}`,
      'pro\tuser\u0000ann:1',
      '',
      '0n0',
    ]);
  });

  it("reads the previous release's lines", () => {
    const read: ReplayRecord[] = [];
    unpackRecordLines(`${at(0)}\ta\tpro\tip\u00001.2.3.4\n${at(1)}\tr\t\tip\u00001.2.3.5`, 0, read);
    expect(read).toEqual([
      { member: 'ip\u00001.2.3.4', tier: 'pro', atUs: at(0), live: 'a' },
      { member: 'ip\u00001.2.3.5', tier: '', atUs: at(1), live: 'r' },
    ]);
  });

  it('keeps in memory at most its records, and nothing older than the retention', async () => {
    const store = new LocalReplayStore(3, 60_000);
    const record = (seconds: number): ReplayRecord => ({
      member: `ip\u0000${seconds}`,
      tier: '',
      atUs: at(seconds),
      live: 'a',
    });
    await store.append('api', batchOf([record(0), record(10)]));
    await store.append('api', batchOf([record(65)]));
    // 0 is more than a minute before 65; 10 is not.
    expect((await store.read('api', 0)).records.map((each) => each.atUs)).toEqual([at(10), at(65)]);
    await store.append('api', batchOf([record(66), record(67)]));
    expect((await store.read('api', 0)).records.map((each) => each.atUs)).toEqual([
      at(65),
      at(66),
      at(67),
    ]);
  });
});
