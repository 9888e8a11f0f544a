import { parseMember, type IdentifierCount } from './identifier-stats.store.js';
import type { CalendarUnit } from '../clock/calendar.js';
import { bucketBottom, bucketTop, HOUR_MS, STEPS, type ProfileWindows } from './traffic-profile.js';
import type { ProfileRecord } from './traffic-profile.store.js';

/** The percentiles a profile reports, as fractions. */
export const PROFILE_PERCENTILES = { p50: 0.5, p90: 0.9, p99: 0.99, p999: 0.999 } as const;

/** One of the busiest identifiers of a profile. */
export interface ProfileIdentifier extends Pick<IdentifierCount, 'keyKind' | 'identifier' | 'key'> {
  /** The tier its requests were decided under, or null. */
  tier: string | null;
  /** The most requests it made in one window. */
  most: number;
}

/** Requests per identifier per window over some hours, for one tier or all. */
export interface ProfileSummary {
  /**
   * The window counted in, ms: the policy's period, a second at the least; for a calendar
   * policy its unit's usual length (a month of 30 days), its windows being its own periods.
   */
  windowMs: number;
  /** The calendar unit whose periods are the windows, or null: windows of `windowMs`. */
  calendar: CalendarUnit | null;
  /** The hours read, epoch ms: from the start of the first to the end of the last. */
  fromMs: number;
  /** The end of the last hour read, epoch ms. */
  toMs: number;
  /** The tier read: null for every request of the policy, '' for those of no tier. */
  tier: string | null;
  /** Windows folded with at least one identifier. */
  windows: number;
  /** Identifiers seen in a window, added over the windows (estimated when sampled). */
  identifierWindows: number;
  /** Requests counted (estimated when sampled). */
  requests: number;
  /**
   * Requests one identifier made in one window, at each percentile of the identifier-windows:
   * the largest count of the bucket the percentile falls in; null without any window.
   */
  percentiles: Record<keyof typeof PROFILE_PERCENTILES, number> | null;
  /** The most one sampled identifier made in one window. */
  max: number;
  /**
   * Identifier-windows by requests made, bucket by bucket (`from`–`to` requests in one window),
   * the fewest first; only buckets that hold any.
   */
  histogram: Array<{ from: number; to: number; identifierWindows: number }>;
  /** The busiest sampled identifiers, the most in one window first. */
  busiest: ProfileIdentifier[];
  /** One identifier in `1 / share` is counted: 1 unless a window held more than the bound. */
  share: number;
  /** Above EXACT_BELOW a percentile may read up to this fraction above the true count. */
  bucketError: number;
  /** Requests counted after their window had folded, left out. */
  late: number;
}

/** A profile read for `tier` (null: every tier together). */
export function summarizeProfile(
  record: ProfileRecord,
  windowing: ProfileWindows,
  fromHour: number,
  toHour: number,
  tier: string | null,
): ProfileSummary {
  const buckets = new Map<number, number>();
  let windows = 0;
  let identifierWindows = 0;
  let requests = 0;
  let max = 0;
  for (const { fields } of record.hours) {
    windows += tier === null ? (fields.get('w') ?? 0) : (fields.get(`${tier}:w`) ?? 0);
    for (const [field, value] of fields) {
      const split = field.lastIndexOf(':');
      if (split < 0) continue;
      const fieldTier = field.slice(0, split);
      if (tier !== null && fieldTier !== tier) continue;
      const name = field.slice(split + 1);
      if (name === 'r') requests += value;
      else if (name === 'x') max = Math.max(max, value);
      else if (name.startsWith('b')) {
        const bucket = Number(name.slice(1));
        buckets.set(bucket, (buckets.get(bucket) ?? 0) + value);
        identifierWindows += value;
      }
    }
  }
  return {
    windowMs: windowing.kind === 'fixed' ? windowing.windowMs : windowing.usualMs,
    calendar: windowing.kind === 'fixed' ? null : windowing.calendar.unit,
    fromMs: fromHour * HOUR_MS,
    toMs: (toHour + 1) * HOUR_MS,
    tier,
    windows,
    identifierWindows,
    requests,
    percentiles: identifierWindows === 0 ? null : percentilesOf(buckets, identifierWindows, max),
    max,
    histogram: [...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([bucket, weight]) => ({
        from: bucketBottom(bucket),
        to: bucketTop(bucket),
        identifierWindows: weight,
      })),
    busiest: busiestOf(record, tier),
    share: 2 ** record.level,
    bucketError: 1 / STEPS,
    late: record.late,
  };
}

/** Nearest rank: the smallest bucket whose running total reaches fraction × total. */
function percentilesOf(
  buckets: Map<number, number>,
  total: number,
  max: number,
): ProfileSummary['percentiles'] {
  const ordered = [...buckets].sort((a, b) => a[0] - b[0]);
  const at = (fraction: number): number => {
    const rank = Math.max(1, Math.ceil(fraction * total));
    let running = 0;
    for (const [bucket, weight] of ordered) {
      running += weight;
      if (running >= rank) return Math.min(bucketTop(bucket), max);
    }
    return max;
  };
  return {
    p50: at(PROFILE_PERCENTILES.p50),
    p90: at(PROFILE_PERCENTILES.p90),
    p99: at(PROFILE_PERCENTILES.p99),
    p999: at(PROFILE_PERCENTILES.p999),
  };
}

const BUSIEST_SHOWN = 20;

function busiestOf(record: ProfileRecord, tier: string | null): ProfileIdentifier[] {
  const most = new Map<string, number>();
  for (const { top } of record.hours) {
    for (const { member, count } of top) {
      if (count > (most.get(member) ?? 0)) most.set(member, count);
    }
  }
  const found: ProfileIdentifier[] = [];
  for (const [member, count] of most) {
    const split = member.indexOf(':');
    const memberTier = member.slice(0, split);
    if (tier !== null && memberTier !== tier) continue;
    const parsed = parseMember(member.slice(split + 1));
    if (parsed === null) continue;
    found.push({ ...parsed, tier: memberTier === '' ? null : memberTier, most: count });
  }
  return found.sort((a, b) => b.most - a.most).slice(0, BUSIEST_SHOWN);
}
