// GET /feed is shaped by a leaky bucket: a burst is not refused but let through at a steady pace.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ensureDemoBuilt,
  startDemo,
  stopAllDemos,
  uniqueDemoPrefix,
  type DemoProcess,
} from '../system/support/demo-process.js';
import { countStatuses, demoPolicies, send, type DemoPolicy } from '../system/support/http.js';

const BURST = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe('GET /feed under the leaky-bucket feed policy', () => {
  let demo: DemoProcess;
  let feed: DemoPolicy;
  let intervalMs: number;

  beforeAll(async () => {
    await ensureDemoBuilt();
    demo = await startDemo({
      REDIS_URL: inject('redisUrl'),
      SLUICE_PREFIX: uniqueDemoPrefix('shaping'),
    });
    feed = (await demoPolicies(demo.url)).feed!;
    intervalMs = feed.periodMs / feed.limit;
    // Another client's request first, so no request measured below pays for loading the scripts.
    expect((await send(`${demo.url}/feed`, { from: '127.0.0.2' })).status).toBe(200);
  });

  afterAll(stopAllDemos);

  it('lets ten simultaneous requests reach the handler one interval apart', async () => {
    const answers = await Promise.all(
      Array.from({ length: BURST }, () => send(`${demo.url}/feed`, { from: '127.0.0.3' })),
    );

    expect(countStatuses(answers)).toEqual({ 200: BURST });
    const servedAt = answers.map((answer) => Number(answer.body.servedAt)).sort((a, b) => a - b);
    const gaps = servedAt.slice(1).map((at, i) => at - servedAt[i]!);
    const span = servedAt.at(-1)! - servedAt[0]!;
    const figures = `gaps ${gaps.join(', ')} ms; span ${span} ms`;
    expect(Math.abs(median(gaps) - intervalMs), figures).toBeLessThanOrEqual(0.35 * intervalMs);
    // No two requests bunched together; a late timer may shorten the gap after it.
    for (const gap of gaps) expect(gap, figures).toBeGreaterThanOrEqual(0.25 * intervalMs);
    expect(Math.abs(span - (BURST - 1) * intervalMs), figures).toBeLessThanOrEqual(200);
  });

  it('refuses what would wait longer than maxDelayMs, and lets the rest through', async () => {
    const queued = Math.floor(feed.maxDelayMs! / intervalMs) + 1;
    const answers = await Promise.all(
      Array.from({ length: queued + 5 }, () => send(`${demo.url}/feed`, { from: '127.0.0.4' })),
    );

    const counts = countStatuses(answers);
    expect(counts[200]).toBeGreaterThanOrEqual(queued);
    expect(counts[429]).toBeGreaterThan(0);
    expect(counts[200]! + counts[429]!).toBe(answers.length);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body.policy).toBe('feed');
    const servedAt = answers
      .filter((answer) => answer.status === 200)
      .map((answer) => Number(answer.body.servedAt));
    expect(Math.max(...servedAt) - Math.min(...servedAt)).toBeLessThanOrEqual(
      feed.maxDelayMs! + 200,
    );
  });
});
