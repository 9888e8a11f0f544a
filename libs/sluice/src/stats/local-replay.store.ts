import {
  DEFAULT_MAX_RECORDS,
  DEFAULT_RETENTION_MS,
  recordsOf,
  type ReplayBatch,
  type ReplayRead,
  type ReplayRecord,
  type ReplayStore,
} from './replay.store.js';

/** Without Redis, the record lives in this process, bounded as the stream is. */
export class LocalReplayStore implements ReplayStore {
  private readonly policies = new Map<string, ReplayRecord[]>();

  constructor(
    private readonly maxRecords: number = DEFAULT_MAX_RECORDS,
    private readonly retentionMs: number = DEFAULT_RETENTION_MS,
  ) {}

  append(policy: string, batch: ReplayBatch): Promise<void> {
    const records = recordsOf(batch);
    let kept = this.policies.get(policy);
    if (kept === undefined) {
      kept = [];
      this.policies.set(policy, kept);
    }
    kept.push(...records);
    if (kept.length > this.maxRecords) kept.splice(0, kept.length - this.maxRecords);
    // As a read of the stream does: what is older than the retention before the newest record
    // goes, found from the oldest end (records come about in time order), not by a full scan.
    const newestUs = records.reduce((newest, record) => Math.max(newest, record.atUs), 0);
    let old = 0;
    while (
      old < kept.length &&
      (kept[old] as ReplayRecord).atUs < newestUs - this.retentionMs * 1000
    ) {
      old++;
    }
    if (old > 0) kept.splice(0, old);
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
