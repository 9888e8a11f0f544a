/** Each unit a duration may be written in, largest first, with the words people use for it. */
const UNITS = [
  { ms: 86_400_000, short: 'd', words: ['d', 'day', 'days'], per: 'day' },
  { ms: 3_600_000, short: 'h', words: ['h', 'hr', 'hrs', 'hour', 'hours'], per: 'hour' },
  {
    ms: 60_000,
    short: 'min',
    words: ['m', 'min', 'mins', 'minute', 'minutes'],
    per: 'minute',
  },
  { ms: 1_000, short: 's', words: ['s', 'sec', 'secs', 'second', 'seconds'], per: 'second' },
  { ms: 1, short: 'ms', words: ['ms', 'millisecond', 'milliseconds'], per: 'millisecond' },
] as const;

const UNIT_OF = new Map<string, number>(
  UNITS.flatMap((unit) => unit.words.map((word) => [word, unit.ms] as const)),
);

/**
 * A duration as people write it, in milliseconds: "1 min", "90 s", "2 h", "1 h 30 min",
 * "1.5 h", or a bare number of milliseconds ("60000"). Undefined when the text is not one, or
 * when it does not come to a whole number of milliseconds.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Sticky: each part must start where the last one ended, so nothing in between is skipped.
  const part = /(\d+(?:\.\d+)?)\s*([a-z]+)[\s,]*/y;
  let total = 0;
  let parts = 0;
  while (part.lastIndex < trimmed.length) {
    const match = part.exec(trimmed);
    const unit = match?.[2] === undefined ? undefined : UNIT_OF.get(match[2]);
    if (match === null || unit === undefined) return undefined;
    total += Number(match[1]) * unit;
    parts++;
  }
  const rounded = Math.round(total);
  const whole = Math.abs(total - rounded) < 1e-6 && Number.isSafeInteger(rounded);
  return parts > 0 && whole ? rounded : undefined;
}

/**
 * A whole number of milliseconds exactly, largest units first: "1 min", "1 h 30 min", "1 s 500 ms";
 * what an operator typed, written back. A wait or a time left is shown rounded (`formatDuration`).
 */
export function exactDurationText(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms <= 0) return `${ms} ms`;
  const parts: string[] = [];
  let left = ms;
  for (const unit of UNITS) {
    const count = Math.floor(left / unit.ms);
    if (count > 0) parts.push(`${count} ${unit.short}`);
    left -= count * unit.ms;
  }
  return parts.join(' ');
}

/** A rate as a sentence: "5 per minute", "100 per 10 s", "1 per 1 h 30 min". */
export function rateText(limit: number, periodMs: number): string {
  const whole = UNITS.find((unit) => unit.ms === periodMs);
  return `${limit} per ${whole === undefined ? exactDurationText(periodMs) : whole.per}`;
}
