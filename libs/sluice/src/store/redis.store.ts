import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/clock.js';
import { resultsOf, scriptCall, type BatchedCall } from './batched.call.js';
import { ClusterDispatch } from './cluster.dispatch.js';
import {
  fromNodeRedis,
  isNodeRedis,
  type NodeRedisClient,
  type NodeRedisCluster,
} from './node-redis.client.js';
import { ScriptRunner, type ScriptingMode } from './script.runner.js';
import { callArgument, encodeSpec } from './spec.codec.js';
import type {
  CallWatcher,
  PolicySpec,
  SluiceStore,
  StoreCall,
  StoreResult,
} from './store.types.js';
import { TurnBatch } from './turn.batch.js';

export type { ScriptingMode };

/** How a RedisStore times out, runs its Lua and batches. */
export interface RedisStoreOptions {
  /**
   * For tests only: decide at this clock's time instead of Redis TIME. In production every
   * decision takes its time from Redis, so instances whose clocks drift still agree.
   */
  clock?: Clock;
  /**
   * How long a call waits for its reply before failing with StoreTimeoutError; none by default.
   * Unlike ioredis' commandTimeout, it does not fail a call whose reply came while the app held
   * the event loop (see withinDeadline).
   */
  timeoutMs?: number;
  /**
   * How the Lua runs. 'function' (FUNCTION LOAD, then FCALL) or 'eval' (SCRIPT LOAD, then
   * EVALSHA), or 'auto' (the default): functions, unless the server has none or its ACL forbids
   * them, and EVALSHA from then on. docs/architecture.md, "Choices worth knowing", compares them.
   */
  scripting?: 'auto' | ScriptingMode;
  /**
   * Decisions per FCALL at most (default 64), and how long, ms, those made while an FCALL is out
   * wait for it (default 1; 0: each turn's are sent at once). docs/benchmarks.md says how the
   * defaults were measured.
   */
  batch?: { maxCalls?: number; holdMs?: number };
}

/** Refuses batch limits the store cannot keep, naming the field under `owner` (`… options.batch`). */
export function assertBatchLimits(batch: RedisStoreOptions['batch'], owner: string): void {
  const { maxCalls, holdMs } = batch ?? {};
  if (
    maxCalls !== undefined &&
    (!Number.isSafeInteger(maxCalls) || maxCalls < 1 || maxCalls > 1000)
  ) {
    throw new RangeError(
      `${owner}.maxCalls: must be an integer from 1 to 1000, got ${String(maxCalls)}`,
    );
  }
  if (holdMs !== undefined && (!Number.isSafeInteger(holdMs) || holdMs < 0 || holdMs > 100)) {
    throw new RangeError(
      `${owner}.holdMs: must be an integer from 0 to 100, got ${String(holdMs)}`,
    );
  }
}

/**
 * Calls per FCALL at most, by default: bounds how long one FCALL holds the server. It and the hold
 * are measured in docs/benchmarks.md ("Batch size and hold").
 */
const MAX_CALLS_PER_FCALL = 64;
/** How long a call may wait for the FCALL already out to come back before it is sent anyway. */
const MAX_HOLD_MS = 1;

/** Tells a call's watcher, if it has one, how its batch answered it. */
function tellWatcher(call: BatchedCall, failed: boolean): void {
  const watcher = call.watcher;
  if (watcher === undefined) return;
  if (failed) watcher.failed();
  else watcher.succeeded();
}

/**
 * Decides in Redis 7 or later (a single server or a Cluster), in three parts with one job each:
 * TurnBatch coalesces the calls made in one turn of the event loop, and those made while the
 * previous send is out (for at most MAX_HOLD_MS), decided one after the other in `operateMany`;
 * ScriptRunner runs the Lua (FCALL, or EVALSHA as a fallback) and loads it when a reply says
 * nothing ran; on a Cluster, ClusterDispatch keeps a batch per master and sends one script call
 * per slot in one pipeline. On a single server a batch is one FCALL: one write, one read and one
 * script start for all of its calls. Each call is in exactly one script call.
 */
export class RedisStore implements SluiceStore {
  /** Engines reuse their spec objects, so each is encoded once. */
  private readonly encodedSpecs = new WeakMap<PolicySpec, string>();
  private readonly runner: ScriptRunner;
  /** The single server's batch; undefined on a Cluster, whose batches are per master. */
  private readonly batch: TurnBatch<BatchedCall, StoreResult> | undefined;
  private readonly cluster: ClusterDispatch | undefined;

  /** `given`: an ioredis client or cluster, or a connected node-redis (4 or 5) one. */
  constructor(
    given: Redis | Cluster | NodeRedisClient | NodeRedisCluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    assertBatchLimits(options.batch, 'RedisStore options.batch');
    const client = isNodeRedis(given) ? fromNodeRedis(given) : given;
    this.runner = new ScriptRunner(client, options.scripting ?? 'auto');
    const newBatch = (send: (calls: BatchedCall[]) => Promise<Array<StoreResult | Error>>) =>
      new TurnBatch(send, {
        maxItems: options.batch?.maxCalls ?? MAX_CALLS_PER_FCALL,
        maxHoldMs: options.batch?.holdMs ?? MAX_HOLD_MS,
        settled: tellWatcher,
      });
    const sendOneSlot = (calls: BatchedCall[], timeoutMs = options.timeoutMs) =>
      this.sendOneSlot(calls, timeoutMs);
    if ('nodes' in client) {
      this.cluster = new ClusterDispatch(
        client,
        this.runner,
        newBatch,
        sendOneSlot,
        options.timeoutMs,
      );
    } else {
      this.batch = newBatch((calls) => this.sendOneSlot(calls, options.timeoutMs));
    }
  }

  /**
   * Decides one call in one FCALL (batched with others of the same turn). Not async: the batch's
   * promise, which the send resolves with the call's decoded result, is the call's own.
   */
  run(call: StoreCall): Promise<StoreResult> {
    return this.runWatched(call, undefined);
  }

  /**
   * `run`, telling `watcher` how the call ended as its batch answers it, before its promise
   * settles: the circuit breaker's way to watch without a promise of its own per call.
   */
  runWatched(call: StoreCall, watcher: CallWatcher | undefined): Promise<StoreResult> {
    try {
      const args = [
        call.op,
        this.options.clock ? String(this.options.clock()) : '',
        callArgument(call),
      ];
      for (const spec of call.specs) args.push(this.encoded(spec));
      const batched: BatchedCall = { key: call.key, args, watcher };
      return (this.batch ?? (this.cluster as ClusterDispatch).batchOf(batched)).add(batched);
    } catch (error) {
      watcher?.failed();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, passed on as it is
      return Promise.reject(error);
    }
  }

  /** How the Lua runs now: 'auto' settles on the first call that needs to know. */
  get scripting(): ScriptingMode {
    return this.runner.mode;
  }

  /**
   * Loads the Lua before the first call needs it, settling 'auto'. Nothing is lost when it
   * fails: the first call loads it then.
   */
  prepare(): Promise<ScriptingMode> {
    return this.runner.prepare();
  }

  private encoded(spec: PolicySpec): string {
    let text = this.encodedSpecs.get(spec);
    if (text === undefined) {
      text = encodeSpec(spec);
      this.encodedSpecs.set(spec, text);
    }
    return text;
  }

  /** Calls whose keys share a slot, in one script call; each call's error is its own. */
  private async sendOneSlot(
    calls: BatchedCall[],
    timeoutMs: number | undefined,
  ): Promise<Array<StoreResult | Error>> {
    const { script, keys, keysAndArgs } = scriptCall(calls);
    return resultsOf(calls, await this.runner.run(script, keys, keysAndArgs, timeoutMs));
  }
}
