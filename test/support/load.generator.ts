// A steady, closed-loop HTTP load for fault tests: a few workers per target, each sending one
// request at a time with a short pause, timing every answer as the client sees it.
import { setTimeout as sleep } from 'node:timers/promises';

/** Long enough to tell a hung request from a slow one; far beyond any bound a test asserts. */
const CLIENT_TIMEOUT_MS = 5_000;

export interface LoadTarget {
  /** How the test names the target, e.g. "express /deny". */
  readonly name: string;
  readonly url: string;
}

export interface LoadSample {
  readonly target: string;
  /** The x-client header sent: who the request counts as. */
  readonly identifier: string;
  /** performance.now() when the request was sent. */
  readonly sentAt: number;
  /** Until the whole body was read; the client timeout when it never was. */
  readonly ms: number;
  /** 0 when no HTTP answer came (a network error or the client timeout). */
  readonly status: number;
  readonly headers: Headers;
  readonly error?: string;
}

export interface LoadOptions {
  readonly targets: readonly LoadTarget[];
  /** Who the next request to `target` counts as; asked before every request. */
  readonly identifier: (target: LoadTarget) => string;
  readonly workersPerTarget: number;
  /** Each worker's pause after an answer. */
  readonly pauseMs: number;
  /** Told of every answer. */
  readonly record: (sample: LoadSample) => void;
}

export interface RunningLoad {
  /** Lets each worker finish its request, then resolves. */
  stop(): Promise<void>;
}

export function startLoad(options: LoadOptions): RunningLoad {
  let running = true;
  const worker = async (target: LoadTarget): Promise<void> => {
    while (running) {
      options.record(await timedRequest(target, options.identifier(target)));
      await sleep(options.pauseMs);
    }
  };
  const workers = options.targets.flatMap((target) =>
    Array.from({ length: options.workersPerTarget }, () => worker(target)),
  );
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

async function timedRequest(target: LoadTarget, identifier: string): Promise<LoadSample> {
  const sentAt = performance.now();
  const base = { target: target.name, identifier, sentAt };
  try {
    const response = await fetch(target.url, {
      headers: { 'x-client': identifier },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    const { status, headers } = response;
    return { ...base, ms: performance.now() - sentAt, status, headers };
  } catch (error) {
    const ms = performance.now() - sentAt;
    return { ...base, ms, status: 0, headers: new Headers(), error: (error as Error).message };
  }
}
