/**
 * `npm run bench:tiers`: what a policy's tiers add to a decision in the app, measured in-process
 * where the load generator and the event loop's interleaving cannot blur it: the same
 * fixed-window policy with and without tiers, decided over the memory store (the TypeScript twins),
 * the tiered one with its tier from a synchronous resolver first, as SluiceGuard asks it. CPU time
 * per decision (process.cpuUsage), alternating rounds, medians; prints the figures.
 *
 * Knobs (environment): BENCH_ROUNDS (default 7), BENCH_DECISIONS (default 200 000).
 */
import type { ExecutionContext } from '@nestjs/common';
import { MemoryStore, SluiceEngine } from '../../libs/sluice/src/engine/index.js';
import { TierResolver } from '../../libs/sluice/src/trackers/tier.resolver.js';
import { spread } from './measure.js';

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const ROUNDS = envInt('BENCH_ROUNDS', 7);
const DECISIONS = envInt('BENCH_DECISIONS', 200_000);
/** Identifiers cycled over, as the app bench's 10 000 users. */
const IDENTIFIERS = 10_000;
/** The target of issue 36: what tiers may add per request, in µs of the app's CPU. */
const TARGET_US = 1;

const rule = { algorithm: 'fixed-window', limit: 1_000_000_000, periodMs: 3_600_000 } as const;
const engine = new SluiceEngine({
  store: new MemoryStore(),
  policies: [
    { ...rule, name: 'plain', key: 'user' },
    {
      ...rule,
      name: 'tiered',
      key: 'user',
      tiers: { free: { limit: 999_999_999 }, pro: { limit: 1_000_000_000 } },
    },
  ],
});
const plain = engine.policies.resolve(['plain']);
const tiered = engine.policies.resolve(['tiered']);
const resolver = new TierResolver({
  resolve: (request) =>
    (request as { headers: Record<string, string | undefined> }).headers['x-plan'] ?? 'pro',
});
const request = { headers: { 'x-plan': 'pro' } };
const context = {} as ExecutionContext;
const names = Array.from({ length: IDENTIFIERS }, (_, index) => `user-${index}`);

async function run(withTiers: boolean): Promise<number> {
  const started = process.cpuUsage();
  for (let index = 0; index < DECISIONS; index++) {
    const identifier = names[index % IDENTIFIERS] as string;
    if (withTiers) {
      const resolved = resolver.resolve(request, context);
      const tier = resolved instanceof Promise ? await resolved : resolved;
      await engine.consume(tiered, identifier, tier === undefined ? {} : { tier });
    } else {
      await engine.consume(plain, identifier);
    }
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / DECISIONS;
}

const median = (values: readonly number[]): number => spread(values).median;

async function main(): Promise<void> {
  await run(false);
  await run(true);
  const without: number[] = [];
  const withTiers: number[] = [];
  const added: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Each round measures both, in alternating order, so drift hits them alike.
    const first = round % 2 === 0;
    const a = await run(!first);
    const b = await run(first);
    const plainUs = first ? b : a;
    const tieredUs = first ? a : b;
    without.push(plainUs);
    withTiers.push(tieredUs);
    added.push(tieredUs - plainUs);
    console.log(
      `[round ${round + 1}] without tiers ${plainUs.toFixed(3)} µs, with tiers ${tieredUs.toFixed(3)} µs per decision`,
    );
  }
  const extra = median(added);
  console.log(
    `tiers from a synchronous resolver: ${median(withTiers).toFixed(3)} against ${median(without).toFixed(3)} µs of CPU per decision, ` +
      `${extra >= 0 ? '+' : ''}${extra.toFixed(3)} µs (rounds ${Math.min(...added).toFixed(3)} to ${Math.max(...added).toFixed(3)}); ` +
      `target ≤ +${TARGET_US} µs: ${extra <= TARGET_US ? 'PASS' : 'MISS'}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
