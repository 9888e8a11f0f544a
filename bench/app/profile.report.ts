import type { ProfileCostRow } from '../engine/profile.measure.js';
import { PER_SECOND, SECONDS } from '../engine/profile.measure.js';
import type { TargetRow } from './app.targets.js';

/** Issue 52's budget for the traffic profile and the replay's record, per request. */
export const PROFILE_TARGET = { appUs: 1, redisUs: 0.5 } as const;

const f3 = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '–');
const cell = (spread: ProfileCostRow['app']) =>
  `+${f3(spread.median)} (${f3(spread.min)}–${f3(spread.max)})`;
const period = (row: ProfileCostRow) =>
  row.calendar !== null
    ? `calendar ${row.calendar}`
    : row.periodMs >= 60_000
      ? `${row.periodMs / 60_000} min`
      : `${row.periodMs / 1000} s`;
const shape = (row: ProfileCostRow) => `${period(row)}, ${row.identifiers.toLocaleString('en-US')}`;

/** One target row per budget: the worst median over the shapes. */
export function profileTargetRows(rows: readonly ProfileCostRow[]): TargetRow[] {
  if (rows.length === 0) return [];
  const worst = (of: (row: ProfileCostRow) => number) =>
    rows.reduce((most, row) => (of(row) > of(most) ? row : most));
  const app = worst((row) => row.app.median);
  const redis = worst((row) => row.redis.median);
  return [
    {
      target: `Traffic profile and replay record: app CPU ≤ ${PROFILE_TARGET.appUs} µs a request`,
      measured: `worst ${f3(app.app.median)} µs (${shape(app)} identifiers)`,
      pass: app.app.median <= PROFILE_TARGET.appUs,
    },
    {
      target: `Traffic profile and replay record: Redis CPU ≤ ${PROFILE_TARGET.redisUs} µs a request`,
      measured: `worst ${f3(redis.redis.median)} µs (${shape(redis)} identifiers)`,
      pass: redis.redis.median <= PROFILE_TARGET.redisUs,
    },
  ];
}

export function profileSection(
  rows: readonly ProfileCostRow[],
  rounds: number,
  table: (head: readonly string[], rows: readonly (readonly string[])[]) => string,
): string[] {
  if (rows.length === 0) return [];
  return [
    '',
    '### The traffic profile and the replay record',
    '',
    `The identifier tally counts ${PER_SECOND.toLocaleString('en-US')} requests a second for ${SECONDS} s of a manual clock, flushed once a simulated second into the bench's Redis, with the traffic profile and the replay's record and with neither, alternated, ${rounds} rounds (bench/engine/profile.measure.ts; alone: \`npm run bench:profile\`). Cost per request: the difference of the two runs' process CPU and of Redis's main-thread CPU; medians (min–max), µs.`,
    '',
    table(
      ['Period, identifiers', 'App CPU', 'Redis CPU'],
      rows.map((row) => [shape(row), cell(row.app), cell(row.redis)]),
    ),
  ];
}
