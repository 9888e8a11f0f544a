/**
 * One recorded request of a policy (replay.recorder.ts): who, when (µs on the deciding
 * instance's clock), and what the live rule did: `a` admitted and charged, `r` refused by it, `n`
 * admitted by it but refused by another policy of the request, so not charged.
 */
export interface ReplayRecord {
  /** The identifier as the identifier stats name it (memberOf). */
  member: string;
  /** The tier it was decided under, '' for none. */
  tier: string;
  /** When, µs since the epoch on the deciding instance's clock. */
  atUs: number;
  /** What the live rule did. */
  live: 'a' | 'r' | 'n';
}

/** Records one stored entry holds: an instance's second of one policy, cut in pieces this big. */
export const RECORDS_PER_ENTRY = 1_000;
/**
 * Records a policy keeps at most by default, the oldest going first: 200 000, about 8 MB at
 * 40 bytes a record (docs/algorithms.md, "Replay").
 */
export const DEFAULT_MAX_RECORDS = 200_000;
/** How long a record is kept by default: the traffic profile's retention, a week. */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;

/** What a read of the record found. */
export interface ReplayRead {
  /** The records from `sinceUs` on, in the order they were stored. */
  records: ReplayRecord[];
  /** The oldest record kept, µs, or null when there is none: a range before it is not covered. */
  oldestUs: number | null;
}

/**
 * Where instances keep a bounded, sampled record of each policy's recent requests for replay
 * (docs/algorithms.md, "Replay"): a Redis Stream per policy, or this process without Redis.
 */
export interface ReplayStore {
  /** Adds one instance's records of one policy. */
  append(policy: string, records: readonly ReplayRecord[]): Promise<void>;
  /** The policy's records from `sinceUs` on. */
  read(policy: string, sinceUs: number): Promise<ReplayRead>;
}

/**
 * Records as one stored text: a line per record, `<µs>\t<live>\t<tier>\t<member>` (a member
 * holds no tab or line break: such identifiers are hashed, docs/algorithms.md).
 */
export function packRecords(records: readonly ReplayRecord[]): string {
  return records
    .map((record) => `${record.atUs}\t${record.live}\t${record.tier}\t${record.member}`)
    .join('\n');
}

export function unpackRecords(text: string, sinceUs: number, into: ReplayRecord[]): void {
  for (const line of text.split('\n')) {
    const first = line.indexOf('\t');
    const atUs = Number(line.slice(0, first));
    const live = line[first + 1];
    if (first < 0 || line[first + 2] !== '\t' || (live !== 'a' && live !== 'r' && live !== 'n')) {
      continue;
    }
    const tierEnd = line.indexOf('\t', first + 3);
    if (tierEnd < 0 || atUs < sinceUs) continue;
    into.push({
      atUs,
      live,
      tier: line.slice(first + 3, tierEnd),
      member: line.slice(tierEnd + 1),
    });
  }
}
