import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AlgorithmName, Decision, PolicyInput } from '@sluice/nest/internals';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { ChildWorker, stopAll, type WorkerMessage } from '../../support/engine/child-worker.js';
import type { ConsumeRequest } from '../../support/engine/skewed.worker.js';

/**
 * Instances whose clocks disagree must still agree on every decision: the engine takes "now" from
 * Redis TIME. Three processes with clocks 5 s slow, right and 5 s fast take turns on one
 * identifier; a fourth, unskewed process runs the same sequence alone on another identifier at
 * the same moments (each pair of requests is sent together), and the answers must be equal.
 */

const SKEWS_MS = [-5_000, 0, 5_000];
const REQUESTS = 20;
const LIMIT = 5;
const MINUTE_MS = 60_000;
const SKEWED = new URL('../../support/engine/skewed.worker.ts', import.meta.url);

interface Answer {
  decision: Decision;
  /** Which skewed process asked (ms). */
  skewMs: number;
  /** The pair was answered within this many ms of real time, so their Redis times differ by less. */
  pairWindowMs: number;
  /** performance.now() when the pair was sent and when both answers were in. */
  sentAtMs: number;
  answeredAtMs: number;
}

type Ready = WorkerMessage & { dateNow: number; newDate: number; systemClockUs: number };

let skewed: ChildWorker[] = [];
let baseline: ChildWorker;
let redis: Redis;
/** What each worker (skewed ones, then baseline) read from its clocks at start, and when. */
let clocks: { ready: Ready[]; hereMs: number };

beforeAll(async () => {
  redis = connectRedis();
  skewed = SKEWS_MS.map(
    (skew) => new ChildWorker(`skew${skew}`, SKEWED, { SLUICE_TEST_SKEW_MS: String(skew) }),
  );
  baseline = new ChildWorker('baseline', SKEWED, { SLUICE_TEST_SKEW_MS: '0' });
  await Promise.all([...skewed, baseline].map((worker) => worker.next('started', 30_000)));
  const url = inject('redisUrl');
  const ready = await Promise.all(
    [...skewed, baseline].map((worker) =>
      worker.request<Ready>({ type: 'init', url }, 'ready', 10_000),
    ),
  );
  clocks = { ready, hereMs: Date.now() };
}, 60_000);

afterAll(async () => {
  await stopAll([...skewed, baseline].filter(Boolean));
  await closeAll();
});

async function redisNowMs(): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/** Waits, if need be, until at least marginMs remain before the next multiple of boundaryMs. */
async function awayFromBoundary(boundaryMs: number, marginMs: number): Promise<void> {
  const intoPeriod = (await redisNowMs()) % boundaryMs;
  if (boundaryMs - intoPeriod < marginMs) {
    await new Promise((resolve) => setTimeout(resolve, boundaryMs - intoPeriod + 50));
  }
}

const policyFor = (algorithm: AlgorithmName): PolicyInput => ({
  name: `skew-${algorithm}`,
  algorithm,
  limit: LIMIT,
  periodMs: MINUTE_MS,
});

/** Request i goes to skewed process i mod 3 and, at the same time, to the baseline process. */
async function runSequence(
  algorithm: AlgorithmName,
  clock: ConsumeRequest['clock'],
): Promise<{ skewed: Answer[]; baseline: Decision[] }> {
  const policy = policyFor(algorithm);
  const run = `${algorithm}-${clock}-${Date.now()}`;
  const request = (prefix: string): ConsumeRequest => ({
    type: 'consume',
    prefix,
    policy,
    identifier: 'user-42',
    clock,
  });
  // 20 requests take well under a second; keep window and segment edges out of the way.
  if (algorithm === 'fixed-window') await awayFromBoundary(MINUTE_MS, 10_000);
  if (algorithm === 'sliding-window') await awayFromBoundary(MINUTE_MS / 10, 3_000);
  const answers: Answer[] = [];
  const alone: Decision[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const asker = skewed[i % SKEWS_MS.length] as ChildWorker;
    const started = performance.now();
    type Reply = WorkerMessage & { decision: Decision };
    const [fromSkewed, fromBaseline] = await Promise.all([
      asker.request<Reply>(request(`skew-${run}`), 'decision', 10_000),
      baseline.request<Reply>(request(`base-${run}`), 'decision', 10_000),
    ]);
    const answered = performance.now();
    answers.push({
      decision: fromSkewed.decision,
      skewMs: SKEWS_MS[i % SKEWS_MS.length] as number,
      pairWindowMs: answered - started,
      sentAtMs: started,
      answeredAtMs: answered,
    });
    alone.push(fromBaseline.decision);
  }
  return { skewed: answers, baseline: alone };
}

/**
 * Every way request i's answer differs from the baseline's beyond real time. The two answers to
 * one request came within its pair's window of each other, and the state they read was written
 * by earlier requests, each pair of which was apart by at most its own window: a wait computed
 * from an earlier admission (sliding-log's oldest entry, a bucket's last charge) may differ by
 * both.
 */
function differences(result: { skewed: Answer[]; baseline: Decision[] }): string[] {
  const found: string[] = [];
  let earlierWindowMs = 0;
  result.skewed.forEach(({ decision, skewMs, pairWindowMs }, i) => {
    const expected = result.baseline[i] as Decision;
    for (const field of ['allowed', 'reason', 'remaining', 'limit', 'policy'] as const) {
      if (decision[field] !== expected[field]) {
        found.push(`#${i} (${skewMs} ms) ${field}: ${decision[field]} ≠ ${expected[field]}`);
      }
    }
    // ceil to whole ms on each side: 2 ms on top of the real time between the decisions.
    const tolerance = Math.ceil(pairWindowMs) + Math.ceil(earlierWindowMs) + 2;
    earlierWindowMs = Math.max(earlierWindowMs, pairWindowMs);
    for (const field of ['resetMs', 'retryAfterMs', 'delayMs'] as const) {
      if (Math.abs(decision[field] - expected[field]) > tolerance) {
        found.push(
          `#${i} (${skewMs} ms) ${field}: ${decision[field]} ≠ ${expected[field]} ± ${tolerance}`,
        );
      }
    }
  });
  return found;
}

describe('clock skew between instances: time comes from Redis TIME', () => {
  it('the workers really run with clocks 5 s slow, right and 5 s fast', () => {
    [...SKEWS_MS, 0].forEach((skew, i) => {
      const reply = clocks.ready[i] as Ready;
      // Date.now(), new Date() and the library's systemClock (performance.timeOrigin + now()).
      for (const seen of [reply.dateNow, reply.newDate, reply.systemClockUs / 1000]) {
        expect(Math.abs(seen - clocks.hereMs - skew)).toBeLessThan(1_000);
      }
    });
  });

  it.each(['fixed-window', 'gcra', 'token-bucket', 'sliding-log', 'sliding-window'] as const)(
    '%s, 5 per minute: 5 admitted with remaining 4,3,2,1,0, then 15 rejected, whoever asks',
    async (algorithm) => {
      const result = await runSequence(algorithm, 'redis');
      const decisions = result.skewed.map((answer) => answer.decision);
      expect(decisions.map((d) => d.allowed)).toEqual([
        ...Array<boolean>(5).fill(true),
        ...Array<boolean>(15).fill(false),
      ]);
      expect(decisions.map((d) => d.remaining)).toEqual([
        4,
        3,
        2,
        1,
        0,
        ...Array<number>(15).fill(0),
      ]);
      expect(decisions.map((d) => d.reason)).toEqual([
        ...Array<string>(5).fill('ok'),
        ...Array<string>(15).fill('limit'),
      ]);
      // The admitted five came from all three clocks: -5 s, 0, +5 s, -5 s, 0.
      expect(result.skewed.slice(0, 5).map((a) => a.skewMs)).toEqual([-5_000, 0, 5_000, -5_000, 0]);
      for (const rejected of decisions.slice(5)) {
        expect(rejected.retryAfterMs).toBeGreaterThan(0);
        expect(rejected.retryAfterMs).toBeLessThanOrEqual(MINUTE_MS);
      }
      expect(differences(result)).toEqual([]);
    },
  );

  it('leaky-bucket, 5 per minute: the same 5 admissions (one burst) and the same delays', async () => {
    const result = await runSequence('leaky-bucket', 'redis');
    const decisions = result.skewed.map((answer) => answer.decision);
    expect(decisions.map((d) => d.allowed)).toEqual([
      ...Array<boolean>(5).fill(true),
      ...Array<boolean>(15).fill(false),
    ]);
    expect(decisions.map((d) => d.remaining)).toEqual([
      4,
      3,
      2,
      1,
      0,
      ...Array<number>(15).fill(0),
    ]);
    // One leaves every 12 s: the k-th admitted waits k × 12 s, less the real time since the first.
    const first = result.skewed[0] as Answer;
    result.skewed.slice(0, 5).forEach(({ decision, answeredAtMs }, k) => {
      const elapsedAtMost = Math.ceil(answeredAtMs - first.sentAtMs) + 1;
      expect(decision.delayMs).toBeLessThanOrEqual(k * 12_000);
      expect(decision.delayMs).toBeGreaterThanOrEqual(k * 12_000 - elapsedAtMost);
    });
    expect(differences(result)).toEqual([]);
  });

  it.each(['gcra', 'token-bucket'] as const)(
    'control, %s: with the app clock injected into the store, the skewed processes disagree',
    async (algorithm) => {
      // The test-only `clock` option makes the store decide at this process's time: the skew now
      // shows, which proves the comparison above would catch an engine that read the app clock.
      const result = await runSequence(algorithm, 'app');
      const found = differences(result);
      expect(found.length).toBeGreaterThan(0);
      const resetGaps = result.skewed.map(
        ({ decision }, i) => decision.resetMs - (result.baseline[i] as Decision).resetMs,
      );
      // e.g. request 2 (the 0 s process) after request 1 (the -5 s one): 5 s less to wait.
      expect(Math.min(...resetGaps)).toBeLessThan(-4_000);
    },
  );
});
