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
 * Records a policy keeps at most by default, the oldest going first: 200 000, about 2 to 6 MB
 * as packRecords writes them (docs/algorithms.md, "Replay").
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
 * One instance's records of one policy between two flushes, in columns: each identifier once
 * (`who`), then per record the index of its identifier, its time and what live did. The recorder
 * makes no object per request.
 */
export interface ReplayBatch {
  /** The identifiers recorded, each once. */
  who: Array<{ tier: string; member: string }>;
  /** Per record: its identifier's index in `who`. */
  index: number[];
  /** Per record: when, µs. */
  atUs: number[];
  /** Per record: what the live rule did. */
  live: Array<ReplayRecord['live']>;
}

/** Records as a batch, each identifier (tier and member) once. */
export function batchOf(records: readonly ReplayRecord[]): ReplayBatch {
  const batch: ReplayBatch = { who: [], index: [], atUs: [], live: [] };
  const indexes = new Map<string, Map<string, number>>();
  for (const record of records) {
    let members = indexes.get(record.tier);
    if (members === undefined) {
      members = new Map();
      indexes.set(record.tier, members);
    }
    let index = members.get(record.member);
    if (index === undefined) {
      index = batch.who.length;
      members.set(record.member, index);
      batch.who.push({ tier: record.tier, member: record.member });
    }
    batch.index.push(index);
    batch.atUs.push(record.atUs);
    batch.live.push(record.live);
  }
  return batch;
}

/** A batch's records as objects. */
export function recordsOf(batch: ReplayBatch): ReplayRecord[] {
  return batch.index.map((index, at) => {
    const who = batch.who[index] as { tier: string; member: string };
    return {
      member: who.member,
      tier: who.tier,
      atUs: batch.atUs[at] as number,
      live: batch.live[at] as ReplayRecord['live'],
    };
  });
}

/**
 * Where instances keep a bounded, sampled record of each policy's recent requests for replay
 * (docs/algorithms.md, "Replay"): a Redis Stream per policy, or this process without Redis.
 */
export interface ReplayStore {
  /** Adds one instance's records of one policy. */
  append(policy: string, batch: ReplayBatch): Promise<void>;
  /** The policy's records from `sinceUs` on. */
  read(policy: string, sinceUs: number): Promise<ReplayRead>;
}

/**
 * The batch's records `from` to `to` as one stored text, each identifier written once (field `c`
 * of a stream entry): the first record's time in µs; a line `<tier>\t<member>` per identifier of
 * these records, in order of first appearance, and an empty line; then a line per record,
 * `<µs after the first><live><index>` (a member holds no tab or line break: such identifiers
 * are hashed, docs/algorithms.md). About a quarter of the bytes of a line per record with its
 * identifier.
 */
export function packRecords(batch: ReplayBatch, from = 0, to = batch.index.length): string {
  if (to <= from) return '';
  const baseUs = Math.round(batch.atUs[from] as number);
  const who: string[] = [];
  // The batch's index → this text's, -1 until the identifier first appears here.
  const local = new Int32Array(batch.who.length).fill(-1);
  const lines = new Array<string>(to - from);
  for (let at = from; at < to; at++) {
    const index = batch.index[at] as number;
    let mine = local[index] as number;
    if (mine < 0) {
      mine = who.length;
      local[index] = mine;
      const identifier = batch.who[index] as { tier: string; member: string };
      who.push(`${identifier.tier}\t${identifier.member}`);
    }
    lines[at - from] =
      `${Math.round(batch.atUs[at] as number) - baseUs}${batch.live[at] as string}${mine}`;
  }
  return `${baseUs}\n${who.join('\n')}\n\n${lines.join('\n')}`;
}

const RECORD_LINE = /^(-?\d+)([arn])(\d+)$/;

/** The records of a text packRecords wrote, from `sinceUs` on, added to `into`. */
export function unpackRecords(text: string, sinceUs: number, into: ReplayRecord[]): void {
  const lines = text.split('\n');
  const baseUs = Number(lines[0]);
  if (lines.length < 2 || !Number.isFinite(baseUs)) return;
  const who: Array<{ tier: string; member: string }> = [];
  let at = 1;
  for (; at < lines.length && lines[at] !== ''; at++) {
    const line = lines[at] as string;
    const tab = line.indexOf('\t');
    who.push({ tier: line.slice(0, tab), member: line.slice(tab + 1) });
  }
  for (at++; at < lines.length; at++) {
    const found = RECORD_LINE.exec(lines[at] as string);
    if (found === null) continue;
    const atUs = baseUs + Number(found[1]);
    const identifier = who[Number(found[3])];
    if (identifier === undefined || atUs < sinceUs) continue;
    into.push({ ...identifier, atUs, live: found[2] as ReplayRecord['live'] });
  }
}

/**
 * The records of the previous release's text (field `r` of a stream entry), still read while
 * its entries are kept: a line per record, `<µs>\t<live>\t<tier>\t<member>`.
 */
export function unpackRecordLines(text: string, sinceUs: number, into: ReplayRecord[]): void {
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
