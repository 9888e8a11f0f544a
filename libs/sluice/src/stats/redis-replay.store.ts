import type { Cluster, Redis } from 'ioredis';
import {
  DEFAULT_MAX_RECORDS,
  type ReplayRecord,
  packRecords,
  RECORDS_PER_ENTRY,
  unpackRecords,
  type ReplayRead,
  type ReplayStore,
} from './replay.store.js';

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
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {}

  async append(policy: string, records: readonly ReplayRecord[]): Promise<void> {
    const key = this.key(policy);
    const entries = Math.max(1, Math.ceil(this.maxRecords / RECORDS_PER_ENTRY));
    for (let from = 0; from < records.length; from += RECORDS_PER_ENTRY) {
      const text = packRecords(records.slice(from, from + RECORDS_PER_ENTRY));
      await this.client.xadd(key, 'MAXLEN', '~', entries, '*', 'r', text);
    }
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
        unpackRecords(fields[1] ?? '', 0, found);
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
    const first = await reader.xrange(key, '-', '+', 'COUNT', 1);
    const oldest: ReplayRecord[] = [];
    unpackRecords(first[0]?.[1][1] ?? '', 0, oldest);
    return { records: entries.reverse().flat(), oldestUs: oldest[0]?.atUs ?? null };
  }

  private key(policy: string): string {
    return `${this.prefix}:{replay:${policy}}`;
  }
}
