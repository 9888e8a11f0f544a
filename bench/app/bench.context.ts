import type { Redis } from 'ioredis';
import type { LoadGenerator } from '../load/load.generator.js';
import type { BenchSettings } from './bench.settings.js';

/** What every scenario runs with. */
export interface BenchContext {
  settings: BenchSettings;
  redis: { url: string; admin: Redis; pid: number };
  /** Most runs use `load`; the flood and exactness runs use both at once. */
  load: LoadGenerator;
  secondLoad: LoadGenerator;
}

/** The harness's helper processes, whose CPU is not "other load". */
export const helperPids = (context: BenchContext): number[] => [
  context.redis.pid,
  context.load.pid,
  context.secondLoad.pid,
];
