import { ALGORITHMS, type AlgorithmName } from '../../libs/sluice/src/internals.js';

export type Family = 'bare' | 'calibration' | 'throttler' | 'rate-limiter-flexible' | 'sluice';

/** One limiter set-up of the tiny app, run as its own process. */
export interface Contender {
  /** Slug, as BENCH_CONTENDERS and the contender process take it. */
  id: string;
  /** As the report shows it. */
  label: string;
  family: Family;
  /** Where the counters live: nothing for bare, the process's memory, or Redis. */
  storage: 'none' | 'memory' | 'redis';
  algorithm?: AlgorithmName;
  /** Every request comes from an identifier already refused (only the first gets through). */
  blocked: boolean;
  /** Both policies carry a shadow candidate decided for this percent of identifiers. */
  candidateSample?: number;
  /** Both policies are `consistency: 'eventual'` (decided locally, synced every 50 ms). */
  eventual?: boolean;
  /** The Lua runs through EVALSHA instead of FCALL (SluiceModule's `scripting: 'eval'`). */
  evalsha?: boolean;
  /** A calibration guard's CPU per request, µs (bench/app/limiters/calibration.limiter.ts). */
  spendUs?: number;
  /** SluiceModule's `batch` option, where it is not the default. */
  batch?: { maxCalls?: number; holdMs?: number };
  /** Both policies have tiers, and a synchronous resolver puts every request at `pro`. */
  tiers?: boolean;
  /** A global deny list entry for the load's address: every request is refused from memory. */
  denied?: boolean;
}

export const CONTENDERS: readonly Contender[] = [
  { id: 'bare', label: 'bare (no limiter)', family: 'bare', storage: 'none', blocked: false },
  ...[0, 3].map((spendUs): Contender => ({
    id: `guard-${spendUs}us`,
    label:
      spendUs === 0
        ? 'calibration: an async guard doing nothing'
        : `calibration: an async guard spending ${spendUs} µs of CPU`,
    family: 'calibration',
    storage: 'none',
    blocked: false,
    spendUs,
  })),
  {
    id: 'throttler-memory',
    label: '@nestjs/throttler, in-memory storage',
    family: 'throttler',
    storage: 'memory',
    blocked: false,
  },
  {
    id: 'throttler-redis',
    label: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
    family: 'throttler',
    storage: 'redis',
    blocked: false,
  },
  {
    id: 'rlf-redis',
    label: 'rate-limiter-flexible RateLimiterRedis guard',
    family: 'rate-limiter-flexible',
    storage: 'redis',
    blocked: false,
  },
  ...ALGORITHMS.map((algorithm): Contender => ({
    id: `sluice-${algorithm}`,
    label: `Sluice, ${algorithm}`,
    family: 'sluice',
    storage: 'redis',
    algorithm,
    blocked: false,
  })),
  ...(['fixed-window', 'gcra'] as const).map((algorithm): Contender => ({
    id: `sluice-${algorithm}-eventual`,
    label: `Sluice, ${algorithm}, consistency eventual`,
    family: 'sluice',
    storage: 'redis',
    algorithm,
    blocked: false,
    eventual: true,
  })),
  {
    id: 'sluice-gcra-evalsha',
    label: 'Sluice, gcra, through EVALSHA',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'gcra',
    blocked: false,
    evalsha: true,
  },
  {
    id: 'sluice-candidate',
    label: 'Sluice, fixed-window with a candidate (default 5 % sample)',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'fixed-window',
    blocked: false,
    candidateSample: 5,
  },
  {
    id: 'sluice-candidate-all',
    label: 'Sluice, fixed-window with a candidate for every identifier',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'fixed-window',
    blocked: false,
    candidateSample: 100,
  },
  {
    id: 'sluice-tiers',
    label: 'Sluice, fixed-window with tiers, resolved by a synchronous resolver',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'fixed-window',
    blocked: false,
    tiers: true,
  },
  {
    id: 'throttler-redis-blocked',
    label: '@nestjs/throttler + Redis storage, blocked',
    family: 'throttler',
    storage: 'redis',
    blocked: true,
  },
  {
    id: 'rlf-redis-blocked',
    label: 'rate-limiter-flexible guard, blocked (inMemoryBlockOnConsumed)',
    family: 'rate-limiter-flexible',
    storage: 'redis',
    blocked: true,
  },
  {
    id: 'sluice-blocked',
    label: 'Sluice, blocked (block cache)',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'fixed-window',
    blocked: true,
  },
  {
    id: 'sluice-denied',
    label: 'Sluice, denied by a deny list entry',
    family: 'sluice',
    storage: 'redis',
    algorithm: 'fixed-window',
    blocked: false,
    denied: true,
  },
];

/**
 * Sluice gcra with another batch size or hold than the default (64 calls, 1 ms): not in the
 * default run, measured by naming them in BENCH_CONTENDERS beside `sluice-gcra`
 * (docs/benchmarks.md, "Batch size and hold").
 */
export const TUNING_CONTENDERS: readonly Contender[] = [
  ...[16, 32, 128].map((maxCalls) => ({ maxCalls })),
  ...[0, 3].map((holdMs) => ({ holdMs })),
].map((batch): Contender => ({
  id: `sluice-gcra-${'maxCalls' in batch ? `calls${batch.maxCalls}` : `hold${batch.holdMs}`}`,
  label: `Sluice, gcra, ${'maxCalls' in batch ? `at most ${batch.maxCalls} calls per FCALL` : `held at most ${batch.holdMs} ms`}`,
  family: 'sluice',
  storage: 'redis',
  algorithm: 'gcra',
  blocked: false,
  batch,
}));

/**
 * The order in which a round measures the contenders: each beside the one its target compares it
 * with (Sluice's allowed algorithms around the rate-limiter-flexible guard, Sluice's blocked path
 * next to bare), so the machine's drift between the two windows of a pair stays small.
 */
const MEASURING_ORDER = [
  'throttler-memory',
  'throttler-redis',
  'throttler-redis-blocked',
  'rlf-redis-blocked',
  'sluice-candidate',
  'sluice-fixed-window',
  'sluice-tiers',
  'sluice-candidate-all',
  'sluice-sliding-log',
  'sluice-sliding-window',
  'rlf-redis',
  'sluice-token-bucket',
  'sluice-leaky-bucket',
  'sluice-gcra',
  ...TUNING_CONTENDERS.map((contender) => contender.id),
  'sluice-gcra-evalsha',
  'sluice-gcra-eventual',
  'sluice-fixed-window-eventual',
  // An eventual contender's last sync lands in the next window: bare takes it, not the blocked
  // path, whose target is no Redis command at all.
  'bare',
  'sluice-blocked',
  'sluice-denied',
  'guard-0us',
  'guard-3us',
];

export function inMeasuringOrder(contenders: readonly Contender[]): Contender[] {
  const rank = (contender: Contender) => MEASURING_ORDER.indexOf(contender.id);
  return [...contenders].sort((a, b) => rank(a) - rank(b));
}

export function contenderById(id: string): Contender {
  const all = [...CONTENDERS, ...TUNING_CONTENDERS];
  const contender = all.find((each) => each.id === id);
  if (contender === undefined) {
    throw new Error(`unknown contender "${id}"; one of: ${all.map((each) => each.id).join(', ')}`);
  }
  return contender;
}
