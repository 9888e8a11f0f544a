/**
 * What the eventual store adds to a request Redis decides, in this process alone: the store's
 * own CPU per call over a store that answers at once, on 10 000 identifiers each back only
 * every 4 s (2 500 calls a second of the injected clock), against that store called directly.
 * `npx tsx bench/engine/eventual.overhead.ts`; figures in docs/benchmarks.md.
 */
import { EventualStore } from '../../libs/sluice/src/store/eventual.store.js';
import { toPolicySpec } from '../../libs/sluice/src/engine/policy-spec.js';
import { parsePolicy } from '../../libs/sluice/src/policy/policy.schema.js';
import type { SluiceStore, StoreResult } from '../../libs/sluice/src/store/store.types.js';

const ROUNDS = 5;
const CALLS = 200_000;
const reply: StoreResult = {
  admitted: true,
  outcomes: [
    {
      allowed: true,
      reason: 'ok',
      remaining: 5,
      reset: 1000,
      retry: 0,
      delay: 0,
      blockedUntil: 0,
      offence: 0,
      blockStarted: false,
    },
  ],
};
const answering: SluiceStore = { run: () => Promise.resolve(reply) };
const policy = parsePolicy({
  name: 'feed',
  algorithm: 'gcra',
  limit: 1_000_000,
  periodMs: 60_000,
  consistency: 'eventual',
  syncMs: 50,
});
const spec = toPolicySpec(policy, policy.limit, policy.cost);
let now = 0;
const eventual = new EventualStore(answering, { clock: () => (now += 400) });
const keys = Array.from({ length: 10_000 }, (_, i) => `sluice:{user:user-${i}}`);

async function cpuPerCall(store: SluiceStore): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    await store.run({ op: 'consume', key: keys[i % keys.length] as string, specs: [spec] });
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

const added: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const direct = await cpuPerCall(answering);
  const through = await cpuPerCall(eventual);
  // The first round warms the JIT up and is not counted.
  if (round > 1) added.push(through - direct);
  console.log(
    `round ${round}: direct ${direct.toFixed(3)} µs, through the eventual store ${through.toFixed(3)} µs`,
  );
}
added.sort((a, b) => a - b);
const median = ((added[1] as number) + (added[2] as number)) / 2;
console.log(
  `the eventual store adds ${median.toFixed(2)} µs of CPU per call Redis decides (median of ${added.length} rounds); calls decided here: ${eventual.counts.local}`,
);
