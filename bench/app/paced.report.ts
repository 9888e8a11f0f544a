import { spread, type Spread } from '../engine/measure.js';
import { KEY_MODES, type KeyMode } from './bench.constants.js';
import { ADAPTERS, type AdapterName } from './contender.env.js';
import type { TargetRow } from './app.targets.js';
import { contenderById } from './contenders.js';
import { PACED_CONTENDERS, type PacedSample } from './paced.scenario.js';

/** App CPU per request above bare, against the rate-limiter-flexible guard's, at the same rate. */
export const PACED_TARGET = { exact: 0.7, eventual: 0.3, blocked: 0.15 };
/** p99 at that rate against the guard's, in every key mode. */
export const PACED_P99_TARGET = 1.1;

const MODE_NAMES: Record<KeyMode, string> = { ip: 'IP', users: '10 000 users' };
const ADAPTER_NAMES: Record<AdapterName, string> = { fastify: 'Fastify', express: 'Express' };
const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
const range = (s: Spread, fmt: (v: number) => string) =>
  `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

const of = (samples: readonly PacedSample[], contender: string, mode: KeyMode) =>
  samples.filter((s) => s.contender === contender && s.mode === mode);

/** The adapters the samples were measured on, in the order the bench runs them. */
const adaptersOf = (samples: readonly PacedSample[]) =>
  ADAPTERS.filter((adapter) => samples.some((s) => s.adapter === adapter));

const onAdapter = (samples: readonly PacedSample[], adapter: AdapterName) =>
  samples.filter((s) => s.adapter === adapter);

/** Per round: the contender's app CPU per request less bare's in the same round. */
function above(samples: readonly PacedSample[], contender: string, mode: KeyMode): Spread {
  const bare = new Map(of(samples, 'bare', mode).map((s) => [s.round, s.appCpuUs]));
  return spread(of(samples, contender, mode).map((s) => s.appCpuUs - (bare.get(s.round) ?? NaN)));
}

/**
 * The contender's median CPU above bare ÷ the guard's: a ratio of medians, as a round's own
 * ratio divides two small differences of noisy figures and swings far on a quiet guard round.
 */
function overGuard(samples: readonly PacedSample[], contender: string, mode: KeyMode): number {
  return above(samples, contender, mode).median / above(samples, 'rlf-redis', mode).median;
}

const p99 = (samples: readonly PacedSample[], contender: string, mode: KeyMode) =>
  spread(of(samples, contender, mode).map((s) => s.load.p99)).median;

export function pacedTargetRows(all: readonly PacedSample[]): TargetRow[] {
  return adaptersOf(all).flatMap((adapter) => adapterTargetRows(onAdapter(all, adapter), adapter));
}

function adapterTargetRows(samples: readonly PacedSample[], adapter: AdapterName): TargetRow[] {
  const rate = samples[0]?.rate ?? 0;
  const judged: Array<[string, string, number]> = [
    ['sluice-gcra', 'Sluice gcra, exact', PACED_TARGET.exact],
    ['sluice-gcra-eventual', 'Sluice gcra, eventual', PACED_TARGET.eventual],
    ['sluice-blocked', 'Sluice, blocked (block cache)', PACED_TARGET.blocked],
    ['sluice-denied', 'Sluice, denied (deny list entry)', PACED_TARGET.blocked],
  ];
  return judged.flatMap(([id, label, target]) => {
    const parts = KEY_MODES.flatMap((mode) => {
      if (of(samples, id, mode).length === 0 || of(samples, 'rlf-redis', mode).length === 0) {
        return [];
      }
      const ratio = overGuard(samples, id, mode);
      const own = above(samples, id, mode);
      const guard = above(samples, 'rlf-redis', mode);
      const mine = p99(samples, id, mode);
      const theirs = p99(samples, 'rlf-redis', mode);
      return [
        {
          text: `${MODE_NAMES[mode]}: ${x(ratio)} (${range(own, f1)} vs ${range(guard, f1)} µs above bare), p99 ${f2(mine)} vs ${f2(theirs)} ms`,
          pass: ratio <= target && mine <= theirs * PACED_P99_TARGET,
        },
      ];
    });
    if (parts.length === 0) return [];
    return [
      {
        target: `${ADAPTER_NAMES[adapter]} at ${rate.toLocaleString('en-US')} req/s: ${label}, app CPU per request above bare ≤ ${target}× the rate-limiter-flexible guard's, p99 ≤ ${PACED_P99_TARGET}× the guard's`,
        measured: parts.map((part) => part.text).join('; '),
        pass: parts.every((part) => part.pass),
      },
    ];
  });
}

export function pacedSection(all: readonly PacedSample[], rounds: number): string[] {
  if (all.length === 0) return [];
  const durationS = all[0]?.load.seconds ?? 0;
  const adapters = adaptersOf(all);
  const rates = adapters
    .map((adapter) => {
      const rate = onAdapter(all, adapter)[0]?.rate ?? 0;
      return `${ADAPTER_NAMES[adapter]} at ${rate.toLocaleString('en-US')}`;
    })
    .join(', ');
  const head = [
    'Contender',
    'Served req/s',
    'p50 ms',
    'p99 ms',
    'Event loop delay p99 / max, ms',
    'App CPU µs/req',
    'Above bare, µs/req',
    '× the guard above bare',
    'Redis CPU µs/req',
    'Script calls/req',
  ];
  const out = [
    '### At a fixed load',
    '',
    `Every contender at a fixed rate, the same for all on one adapter (${rates} requests a second: about half of what bare serves at saturation on this host), sent at an even pace by the bench's own client (bench/load/paced.load.ts, up to 50 connections) and each timed from when it was due, windows of about ${durationS.toFixed(0)} s, ${rounds} rounds, the order reversed every other round. Below saturation a contender's CPU per request is its own rather than an artefact of how its event loop interleaves with the load generator's; "above bare" subtracts bare's app CPU per request in the same round, and "× the guard" divides its median by the rate-limiter-flexible guard's (a ratio of medians: a round's own ratio divides two small, noisy differences). The event loop delay is the app's own (perf_hooks \`monitorEventLoopDelay\` sampling every 5 ms over the window, less those 5 ms): how late its loop ran what was due, the part of the tail the app's own work and timers add; the rest of a request's p99 is the wait for Redis, the sockets and the load generator. Median (min–max) over the rounds.`,
    '',
  ];
  for (const [adapter, mode] of adapters.flatMap((each) =>
    KEY_MODES.map((key) => [each, key] as const),
  )) {
    const samples = onAdapter(all, adapter);
    const present = PACED_CONTENDERS.filter((id) => of(samples, id, mode).length > 0);
    if (present.length === 0) continue;
    const row = (id: string) => {
      const sp = (figure: (s: PacedSample) => number) =>
        spread(of(samples, id, mode).map(figure)).median;
      return [
        contenderById(id).label,
        f1(sp((s) => s.load.perSecond)),
        f2(sp((s) => s.load.p50)),
        f2(sp((s) => s.load.p99)),
        `${f2(sp((s) => s.loop?.p99 ?? NaN))} / ${f2(sp((s) => s.loop?.max ?? NaN))}`,
        f1(sp((s) => s.appCpuUs)),
        id === 'bare' ? '0' : range(above(samples, id, mode), f1),
        id === 'bare' || id === 'rlf-redis' ? '' : x(overGuard(samples, id, mode)),
        f1(sp((s) => s.redis.cpuUs)),
        f2(sp((s) => s.redis.scriptCalls)),
      ];
    };
    out.push(
      `#### ${ADAPTER_NAMES[adapter]}, ${MODE_NAMES[mode]}`,
      '',
      `| ${head.join(' | ')} |`,
      `| ${head.map(() => '---').join(' | ')} |`,
      ...present.map((id) => `| ${row(id).join(' | ')} |`),
      '',
    );
  }
  return out;
}
