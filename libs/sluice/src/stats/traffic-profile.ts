/**
 * The traffic profile's arithmetic, the twin of traffic-profile.lua (the same names): how many
 * requests an identifier made in one window of its policy's period, filed in a histogram bucket;
 * which identifiers a window samples; and a closed window folded into the histogram of the hour
 * it ended in (docs/algorithms.md, "Traffic profiles").
 */
import { LONGEST_PERIOD_MS, periodAt, USUAL_PERIOD_MS, type Calendar } from '../clock/calendar.js';

/** Counts below this have a bucket each. */
export const EXACT_BELOW = 32;
/** Buckets per power of two above EXACT_BELOW: a bucket spans at most 1/16 of its values. */
export const STEPS = 16;
/** The shortest window a profile counts in, ms: a shorter period is profiled per second. */
export const SHORTEST_WINDOW_MS = 1_000;
/** Windows longer than this are read by the hours they end in, and kept one window longer. */
export const DAY_MS = 86_400_000;
/** A window folds this long after it ends: instances send what they counted once a second. */
export const FOLD_AFTER_MS = 5_000;
/**
 * A lower level applies to windows that open this long after it is announced: every instance,
 * sending once a second, has heard of it by then.
 */
export const LOWER_NOTICE_MS = 2_000;
/** The busiest identifiers an hour keeps. */
export const TOP_PER_HOUR = 20;
/** An hour, ms: a profile is kept and read by the hour. */
export const HOUR_MS = 3_600_000;

/** The bucket of a count of one or more. */
export function bucketOf(count: number): number {
  if (count < EXACT_BELOW) return count;
  let power = 5;
  while (count >= 2 ** (power + 1)) power++;
  return EXACT_BELOW + (power - 5) * STEPS + Math.floor((count - 2 ** power) / 2 ** (power - 4));
}

/** The largest count a bucket holds. */
export function bucketTop(bucket: number): number {
  if (bucket < EXACT_BELOW) return bucket;
  const power = 5 + Math.floor((bucket - EXACT_BELOW) / STEPS);
  const step = (bucket - EXACT_BELOW) % STEPS;
  return 2 ** power + (step + 1) * 2 ** (power - 4) - 1;
}

/** The smallest count a bucket holds. */
export function bucketBottom(bucket: number): number {
  if (bucket < EXACT_BELOW) return bucket;
  const power = 5 + Math.floor((bucket - EXACT_BELOW) / STEPS);
  const step = (bucket - EXACT_BELOW) % STEPS;
  return 2 ** power + step * 2 ** (power - 4);
}

/** The window a policy's period is profiled in: the period, a second at the least. */
export function windowMsOf(periodMs: number): number {
  return Math.max(SHORTEST_WINDOW_MS, periodMs);
}

/**
 * How a policy's profile cuts time: windows of a fixed length, numbered from the epoch
 * (`floor(t / windowMs)`), or a calendar policy's own periods, each named by its end (epoch ms).
 * `key` names them in the store: the length in ms, or `<unit>:<timeZone>:<anchorDay>`.
 */
export type ProfileWindows =
  | { kind: 'fixed'; key: string; windowMs: number }
  | { kind: 'calendar'; key: string; calendar: Calendar; longestMs: number; usualMs: number };

/** Windows of `windowMs` (at least a second). */
export function fixedWindows(windowMs: number): ProfileWindows {
  const length = windowMsOf(windowMs);
  return { kind: 'fixed', key: String(length), windowMs: length };
}

/** The windows a policy is profiled in: its calendar's periods, or windows of its period. */
export function profileWindowsOf(policy: {
  periodMs: number;
  calendar: Calendar | null;
}): ProfileWindows {
  const calendar = policy.calendar;
  if (calendar === null) return fixedWindows(policy.periodMs);
  return {
    kind: 'calendar',
    key: `${calendar.unit}:${calendar.timeZone}:${calendar.anchorDay ?? 1}`,
    calendar,
    longestMs: LONGEST_PERIOD_MS[calendar.unit],
    usualMs: USUAL_PERIOD_MS[calendar.unit],
  };
}

/** The longest one window lasts, ms. */
export function longestWindowMs(windows: ProfileWindows): number {
  return windows.kind === 'fixed' ? windows.windowMs : windows.longestMs;
}

/** The window holding `atMs`. */
export function windowAt(windows: ProfileWindows, atMs: number): number {
  return windows.kind === 'fixed'
    ? Math.floor(atMs / windows.windowMs)
    : periodAt(atMs, windows.calendar).end;
}

/** When a window ends, epoch ms. */
export function windowEnd(windows: ProfileWindows, window: number): number {
  return windows.kind === 'fixed' ? (window + 1) * windows.windowMs : window;
}

/**
 * How long an hour a window folded into is kept, ms: the retention, and for a window longer
 * than a day one window more, so the last whole window can be read until the next one folds.
 */
export function hoursKeptMs(windows: ProfileWindows, retentionMs: number): number {
  const longest = longestWindowMs(windows);
  return longest > DAY_MS ? retentionMs + longest : retentionMs;
}

/**
 * The hours from `fromHour` to `toHour` that can hold a folded window: all of them for windows
 * of a day or less; for longer ones only the hours a window ended in, so a read of a year's
 * calendar touches a few hours, not thousands.
 */
export function hoursToRead(windows: ProfileWindows, fromHour: number, toHour: number): number[] {
  const hours: number[] = [];
  if (longestWindowMs(windows) <= DAY_MS) {
    for (let hour = fromHour; hour <= toHour; hour++) hours.push(hour);
    return hours;
  }
  let window = windowAt(windows, (toHour + 1) * HOUR_MS - 1);
  for (;;) {
    const hour = hourOf(windows, window);
    if (hour < fromHour) break;
    if (hour <= toHour) hours.unshift(hour);
    // The window before a calendar period ends where that period starts.
    window = windows.kind === 'fixed' ? window - 1 : periodAt(window - 1, windows.calendar).start;
  }
  return hours;
}

/**
 * The first hour a read of the last `hours` should start at: for windows longer than that, far
 * enough back to hold the last whole window.
 */
export function firstHourRead(windows: ProfileWindows, toHour: number, hours: number): number {
  const longest = longestWindowMs(windows);
  return toHour - (longest > hours * HOUR_MS ? Math.ceil(longest / HOUR_MS) + 1 : hours);
}

/** A window of a minute or more keeps up to the bound; a shorter one its share of a minute's. */
const BOUND_WINDOW_MS = 60_000;
const LEAST_BOUND = 100;

/**
 * The most identifiers a window of `windowMs` keeps before it is sampled: `sampleBound` for a
 * window of a minute or more, less in proportion for a shorter one (at least 100), so a policy
 * of a second costs Redis no more a minute than one of a minute.
 */
export function windowBound(sampleBound: number, windowMs: number): number {
  return Math.max(
    Math.min(sampleBound, LEAST_BOUND),
    Math.round((sampleBound * Math.min(windowMs, BOUND_WINDOW_MS)) / BOUND_WINDOW_MS),
  );
}

/** FNV-1a, 32 bits, of a string's UTF-16 code units: the same on every instance. */
export function identifierHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < text.length; at++) {
    hash ^= text.charCodeAt(at);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Whether a window sampled at `level` keeps an identifier: one in 2^level, by its hash, as
 * traffic-profile.lua's sampledAt. Asked for every request the replay records, so a whole level
 * below 32 and a 32-bit hash take a mask rather than a power and a floating-point remainder.
 */
export function sampledAt(hash: number, level: number): boolean {
  if (level >= 0 && level < 32 && (level | 0) === level && hash >>> 0 === hash) {
    return (hash & ~(-1 << level)) === 0;
  }
  return hash % 2 ** level === 0;
}

/**
 * A window's field for one identifier: its hash in 8 hex digits, its tier ('' for none) and its
 * member (identifier-stats.store.ts memberOf), so the Lua reads the hash and tier without
 * hashing, and a tier name (no ':') ends where the member starts.
 */
export function fieldOf(hash: number, tier: string, member: string): string {
  return `${hash.toString(16).padStart(8, '0')}:${tier}:${member}`;
}

export function parseField(field: string): { hash: number; tier: string; member: string } | null {
  const end = field.indexOf(':', 9);
  if (field[8] !== ':' || end < 0) return null;
  return {
    hash: Number.parseInt(field.slice(0, 8), 16),
    tier: field.slice(9, end),
    member: field.slice(end + 1),
  };
}

/** The hour a window is filed under: the one it ends in. */
export function hourOf(windows: ProfileWindows, window: number): number {
  return Math.floor((windowEnd(windows, window) - 1) / HOUR_MS);
}

/** The last window that has folded by `nowMs`. */
export function lastFoldable(windows: ProfileWindows, nowMs: number): number {
  return windows.kind === 'fixed'
    ? Math.floor((nowMs - FOLD_AFTER_MS) / windows.windowMs) - 1
    : nowMs - FOLD_AFTER_MS;
}

/**
 * The first window a lower level announced at `nowMs` applies to: the first that opens
 * `noticeMs` later or after, when every instance has heard of it.
 */
export function noticedFrom(windows: ProfileWindows, nowMs: number, noticeMs: number): number {
  return windows.kind === 'fixed'
    ? Math.floor(nowMs / windows.windowMs) + 1 + Math.ceil(noticeMs / windows.windowMs)
    : windowAt(windows, nowMs + noticeMs) + 1;
}

/**
 * An hour's histogram as both stores hold it, field by field: `<tier>:b<bucket>` the identifiers
 * (weighted by the sample) whose window count fell in the bucket, `<tier>:r` their requests,
 * `<tier>:w` the windows folded, `<tier>:x` the largest count seen; `w` the windows folded with
 * any identifier.
 */
export type HourFields = Map<string, number>;

/**
 * Folds one closed window (field → count, sampled at `level`) into `hour`, and offers its
 * busiest to `top` (member `<tier>:<member>` → its largest count).
 */
export function foldWindow(
  fields: ReadonlyMap<string, number>,
  level: number,
  hour: HourFields,
  top: Map<string, number>,
): void {
  const weight = 2 ** level;
  const tiers = new Set<string>();
  for (const [field, count] of fields) {
    const parsed = parseField(field);
    if (parsed === null || count <= 0) continue;
    const tier = parsed.tier;
    tiers.add(tier);
    add(hour, `${tier}:b${bucketOf(count)}`, weight);
    add(hour, `${tier}:r`, count * weight);
    if (count > (hour.get(`${tier}:x`) ?? 0)) hour.set(`${tier}:x`, count);
    const member = `${tier}:${parsed.member}`;
    if (count > (top.get(member) ?? 0)) top.set(member, count);
  }
  for (const tier of tiers) add(hour, `${tier}:w`, 1);
  if (tiers.size > 0) add(hour, 'w', 1);
}

function add(hour: HourFields, field: string, amount: number): void {
  hour.set(field, (hour.get(field) ?? 0) + amount);
}
