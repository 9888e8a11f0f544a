import { describe, expect, it } from 'vitest';
import { LocalReplayStore } from './local-replay.store.js';
import { packRecords, unpackRecords, type ReplayRecord } from './replay.store.js';

const at = (seconds: number) => 1_800_000_000_000_000 + seconds * 1_000_000;

describe('the replay record', () => {
  it('reads back as packed, from a time on', () => {
    const records: ReplayRecord[] = [
      { member: 'ip\u000010.0.0.1', tier: '', atUs: at(0), live: 'a' },
      { member: 'user\u0000ann:1', tier: 'pro', atUs: at(1), live: 'n' },
    ];
    const read: ReplayRecord[] = [];
    unpackRecords(packRecords(records), at(1), read);
    expect(read).toEqual([records[1]]);
  });

  it('keeps in memory at most its records, and nothing older than the retention', async () => {
    const store = new LocalReplayStore(3, 60_000);
    const record = (seconds: number): ReplayRecord => ({
      member: `ip\u0000${seconds}`,
      tier: '',
      atUs: at(seconds),
      live: 'a',
    });
    await store.append('api', [record(0), record(10)]);
    await store.append('api', [record(65)]);
    // 0 is more than a minute before 65; 10 is not.
    expect((await store.read('api', 0)).records.map((each) => each.atUs)).toEqual([at(10), at(65)]);
    await store.append('api', [record(66), record(67)]);
    expect((await store.read('api', 0)).records.map((each) => each.atUs)).toEqual([
      at(65),
      at(66),
      at(67),
    ]);
  });
});
