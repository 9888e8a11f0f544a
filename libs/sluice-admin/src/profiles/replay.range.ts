import {
  periodAt,
  replayRecords,
  type Calendar,
  type ReplayOutcome,
  type ReplayRead,
  type ReplayRecord,
  type ReplayStore,
  type SimulatedPolicy,
} from '@sluice/nest/internals';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';

/**
 * What a replay of a range found, counted over the range's records only: `admitted` holds each
 * of `records`' answers.
 */
export interface RangeReplay extends ReplayOutcome {
  /** The range's records, in the order stored. */
  records: ReplayRecord[];
  /** Where the replay started reading: the start of the rule's window holding the range's start. */
  historyUs: number;
  /** The oldest request the record holds, µs, or null. */
  oldestUs: number | null;
  /** True when the record reaches back to `historyUs`: nothing before the range is unknown. */
  complete: boolean;
}

/**
 * When a replay of a range from `sinceUs` starts reading, so that state carried into the range
 * is replayed too (docs/algorithms.md, "Replay"): a fixed window's start (a calendar's period,
 * or `floor(t / period)` windows), else one period before the range.
 */
export function historyStartUs(
  rule: { algorithm: string; periodMs: number },
  calendar: Calendar | null,
  sinceUs: number,
): number {
  const sinceMs = sinceUs / 1000;
  if (rule.algorithm === 'fixed-window') {
    if (calendar !== null) return periodAt(sinceMs, calendar).start * 1000;
    return Math.floor(sinceMs / rule.periodMs) * rule.periodMs * 1000;
  }
  return sinceUs - rule.periodMs * 1000;
}

/** A policy's record from `sinceUs` on; 503 when Redis cannot answer. */
export async function readRecords(
  store: ReplayStore,
  policy: string,
  sinceUs: number,
): Promise<ReplayRead> {
  try {
    return await store.read(policy, sinceUs);
  } catch (error) {
    throw new RedisUnavailableException('the recorded requests cannot be read', error);
  }
}

/**
 * The policy's recorded requests of `tier` (null: every tier) replayed through `rule` from the
 * start of its window holding `sinceUs` up to `nowUs`, counted from `sinceUs` on.
 */
export async function replayRange(
  store: ReplayStore,
  policy: string,
  rule: SimulatedPolicy,
  tiers: Readonly<Record<string, { limit: number; burst?: number | null }>>,
  calendar: Calendar | null,
  tier: string | null,
  sinceUs: number,
  nowUs: number,
): Promise<RangeReplay> {
  const historyUs = historyStartUs(rule, calendar, sinceUs);
  const read = await readRecords(store, policy, historyUs);
  const all = read.records.filter(
    (record) => record.atUs <= nowUs && (tier === null || record.tier === tier),
  );
  const outcome = replayRecords(rule, all, tiers, calendar);
  const records: ReplayRecord[] = [];
  const admitted: boolean[] = [];
  const counts = { decided: 0, refused: 0, liveRefused: 0, newlyRefused: 0, newlyAdmitted: 0 };
  all.forEach((record, at) => {
    if (record.atUs < sinceUs) return;
    const allowed = outcome.admitted[at] as boolean;
    records.push(record);
    admitted.push(allowed);
    if (record.live === 'n') return;
    counts.decided++;
    if (!allowed) counts.refused++;
    if (record.live === 'r') counts.liveRefused++;
    if (!allowed && record.live === 'a') counts.newlyRefused++;
    if (allowed && record.live === 'r') counts.newlyAdmitted++;
  });
  return {
    records,
    admitted,
    ...counts,
    historyUs,
    oldestUs: read.oldestUs,
    complete: read.oldestUs !== null && read.oldestUs <= historyUs,
  };
}
