import {
  DEFAULT_MAX_RECORDS,
  type ReplayRead,
  type ReplayRecord,
  type ReplayStore,
} from './replay.store.js';

/** Without Redis, the record lives in this process, bounded as the stream is. */
export class LocalReplayStore implements ReplayStore {
  private readonly policies = new Map<string, ReplayRecord[]>();

  constructor(private readonly maxRecords: number = DEFAULT_MAX_RECORDS) {}

  append(policy: string, records: readonly ReplayRecord[]): Promise<void> {
    let kept = this.policies.get(policy);
    if (kept === undefined) {
      kept = [];
      this.policies.set(policy, kept);
    }
    kept.push(...records);
    if (kept.length > this.maxRecords) kept.splice(0, kept.length - this.maxRecords);
    return Promise.resolve();
  }

  read(policy: string, sinceUs: number): Promise<ReplayRead> {
    const kept = this.policies.get(policy) ?? [];
    return Promise.resolve({
      records: kept.filter((record) => record.atUs >= sinceUs),
      oldestUs: kept[0]?.atUs ?? null,
    });
  }
}
