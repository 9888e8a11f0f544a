import type { Cluster, Redis } from 'ioredis';
import {
  DEFAULT_MAX_RECORDS,
  DEFAULT_RETENTION_MS,
  type ReplayRecord,
  packRecords,
  RECORDS_PER_ENTRY,
  unpackRecordLines,
  unpackRecords,
  type ReplayBatch,
  type ReplayRead,
  type ReplayStore,
} from './replay.store.js';

/** A stream entry's records: field `c` packed (packRecords), `r` the previous release's lines. */
function unpackEntry(fields: readonly string[], into: ReplayRecord[]): void {
  if (fields[0] === 'c') unpackRecords(fields[1] ?? '', 0, into);
  else if (fields[0] === 'r') unpackRecordLines(fields[1] ?? '', 0, into);
}

/** Entries read per XREVRANGE. */
const READ_PAGE = 50;
/** How far apart two instances' clocks may be, µs: entries are ordered by Redis's. */
const CLOCKS_APART_US = 60_000_000;

/**
 * The record in a Redis Stream per policy, `<prefix>:{replay:<policy>}`, trimmed to about
 * maxRecords records: each entry holds up to RECORDS_PER_ENTRY of them as text.
 */
export class RedisReplayStore implements ReplayStore {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    /** Records kept per policy, about: the stream is trimmed to this many entries' worth. */
    private readonly maxRecords: number = DEFAULT_MAX_RECORDS,
    /** How long a record is kept, ms: older entries are trimmed, an idle stream expires. */
    private readonly retentionMs: number = DEFAULT_RETENTION_MS,
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {}

  async append(policy: string, batch: ReplayBatch): Promise<void> {
    const key = this.key(policy);
    const count = batch.index.length;
    if (count === 0) return;
    const entries = Math.max(1, Math.ceil(this.maxRecords / RECORDS_PER_ENTRY));
    const pipeline = this.client.pipeline();
    for (let from = 0; from < count; from += RECORDS_PER_ENTRY) {
      const text = packRecords(batch, from, Math.min(count, from + RECORDS_PER_ENTRY));
      pipeline.xadd(key, 'MAXLEN', '~', entries, '*', 'c', text);
    }
    // An idle policy's record goes after the retention; a busy one's older records are left
    // out of reads (read) and pushed out by newer ones.
    pipeline.pexpire(key, this.retentionMs);
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }

  /**
   * Pages back from the newest entry until one holds nothing from `sinceUs` on, give or take a
   * minute of clocks: entries are in Redis's time, records in the instances'.
   */
  async read(policy: string, sinceUs: number): Promise<ReplayRead> {
    const key = this.key(policy);
    const reader = this.reader();
    const entries: ReplayRecord[][] = [];
    let end = '+';
    let done = false;
    while (!done) {
      const page = await reader.xrevrange(key, end, '-', 'COUNT', READ_PAGE);
      for (const [, fields] of page) {
        const found: ReplayRecord[] = [];
        unpackEntry(fields, found);
        const newest = found.reduce((most, record) => Math.max(most, record.atUs), 0);
        if (newest < sinceUs - CLOCKS_APART_US) {
          done = true;
          break;
        }
        entries.push(found.filter((record) => record.atUs >= sinceUs));
      }
      if (page.length < READ_PAGE) break;
      end = `(${page[page.length - 1]![0]}`;
    }
    const records = entries.reverse().flat();
    // Nothing older than the retention, counted back from the newest record, is replayed.
    const newestUs = records.reduce((newest, record) => Math.max(newest, record.atUs), 0);
    const kept = records.filter((record) => record.atUs >= newestUs - this.retentionMs * 1000);
    const first = await reader.xrange(key, '-', '+', 'COUNT', 1);
    const oldest: ReplayRecord[] = [];
    unpackEntry(first[0]?.[1] ?? [], oldest);
    const oldestUs = oldest.reduce<number | null>(
      (least, record) => (least === null ? record.atUs : Math.min(least, record.atUs)),
      null,
    );
    return {
      records: kept,
      oldestUs:
        oldestUs === null || newestUs === 0
          ? oldestUs
          : Math.max(oldestUs, newestUs - this.retentionMs * 1000),
    };
  }

  private key(policy: string): string {
    return `${this.prefix}:{replay:${policy}}`;
  }
}
