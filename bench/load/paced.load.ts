import { Agent, request } from 'node:http';
import type { LoadRequest, LoadResult } from './load.types.js';

/** The value at fraction q of sorted values. */
const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/**
 * Requests at an even pace, one every 1/rate s whatever the answers, each timed from when it
 * was due: autocannon's rate sends each second's quota back to back at the start of the second,
 * and its bursts would be measured instead of the server.
 */
export async function pacedLoad(load: LoadRequest & { rate: number }): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: load.connections });
  const target = new URL(load.url);
  const gapMs = 1000 / load.rate;
  const durationMs = (load.durationS ?? 1) * 1000;
  const latencies: number[] = [];
  const byStatus: Record<string, number> = {};
  let errors = 0;
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  const send = (index: number, dueAt: number) => {
    const users = load.users;
    const headers = users
      ? { [users.header]: `${users.prefix}${((users.first ?? 0) + index) % users.count}` }
      : {};
    const done = new Promise<void>((resolve) => {
      const req = request(
        { agent, host: target.hostname, port: target.port, path: load.path, headers },
        (res) => {
          res.resume();
          res.once('end', () => {
            latencies.push(performance.now() - dueAt);
            const status = String(res.statusCode);
            byStatus[status] = (byStatus[status] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.once('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  let sent = 0;
  while (sent * gapMs < durationMs) {
    const dueAt = start + sent * gapMs;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    send(sent, dueAt);
    sent++;
  }
  await Promise.all(inFlight);
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? NaN,
    byStatus,
    errors,
    timeouts: 0,
  };
}
