/**
 * The traffic profile's arithmetic, the twin of traffic-profile.lua (the same names): how many
 * requests an identifier made in one window of its policy's period, filed in a histogram bucket;
 * which identifiers a window samples; and a closed window folded into the histogram of the hour
 * it ended in (docs/algorithms.md, "Traffic profiles").
 */

/** Counts below this have a bucket each. */
export const EXACT_BELOW = 32;
/** Buckets per power of two above EXACT_BELOW: a bucket spans at most 1/16 of its values. */
export const STEPS = 16;
/** The shortest and longest window a profile counts in, ms. */
export const SHORTEST_WINDOW_MS = 1_000;
export const LONGEST_WINDOW_MS = 86_400_000;
/** A window folds this long after it ends: instances send what they counted once a second. */
export const FOLD_AFTER_MS = 5_000;
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

/** The window a policy's period is profiled in: the period, within a second and a day. */
export function windowMsOf(periodMs: number): number {
  return Math.min(LONGEST_WINDOW_MS, Math.max(SHORTEST_WINDOW_MS, periodMs));
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

/** Whether a window sampled at `level` keeps an identifier: one in 2^level, by its hash. */
export function sampledAt(hash: number, level: number): boolean {
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
export function hourOf(window: number, windowMs: number): number {
  return Math.floor(((window + 1) * windowMs - 1) / HOUR_MS);
}

/** The last window that has folded by `nowMs`. */
export function lastFoldable(nowMs: number, windowMs: number): number {
  return Math.floor((nowMs - FOLD_AFTER_MS) / windowMs) - 1;
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
