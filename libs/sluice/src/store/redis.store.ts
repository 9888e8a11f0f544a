import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/clock.js';
import { withinDeadline } from './reply.deadline.js';
import { loadLuaLibrary, type LuaLibrary } from './script.source.js';
import { decodeReply, encodeSpec } from './spec.codec.js';
import type { PolicySpec, SluiceStore, StoreCall, StoreResult } from './store.types.js';
import { TurnBatch } from './turn.batch.js';

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
}

/** One call as operate() takes it: its key, and op, now, durationMs and the specs. */
interface Prepared {
  key: string;
  args: string[];
}

let library: LuaLibrary | undefined;
/** A flush can land between a load and the call after it; each "not found" means nothing ran. */
const LOAD_ATTEMPTS = 3;
/** Calls per FCALL at most: bounds how long one FCALL holds the server. */
const MAX_CALLS_PER_FCALL = 64;
/** How long a call may wait for the FCALL already out to come back before it is sent anyway. */
const MAX_HOLD_MS = 1;
/** op, now and durationMs come before the specs in a call's arguments. */
const ARGS_BEFORE_SPECS = 3;

/**
 * Decides in Redis 7 or later (a single server or a Cluster). The Lua is a Redis function
 * library, so its definitions run once when loaded rather than on every call. On a single
 * server, calls are coalesced (TurnBatch): those made in the same turn of the event loop, and
 * those made while the previous FCALL is out (for at most MAX_HOLD_MS), go together in one FCALL
 * (operateMany), decided one after the other: one write, one read and one script start for all
 * of them. Each call is still in exactly one FCALL. On a Cluster each call has its own FCALL,
 * as its keys have their own slot.
 */
export class RedisStore implements SluiceStore {
  private readonly library = (library ??= loadLuaLibrary());
  private loading: Promise<void> | undefined;
  /** Engines reuse their spec objects, so each is encoded once. */
  private readonly encodedSpecs = new WeakMap<PolicySpec, string>();
  private readonly batch: TurnBatch<Prepared, unknown> | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    if (!('nodes' in client)) {
      this.batch = new TurnBatch((calls) => this.sendMany(calls), {
        maxItems: MAX_CALLS_PER_FCALL,
        maxHoldMs: MAX_HOLD_MS,
      });
    }
  }

  async run(call: StoreCall): Promise<StoreResult> {
    const args = [
      call.op,
      this.options.clock ? String(this.options.clock()) : '',
      String(call.durationMs ?? 0),
    ];
    for (const spec of call.specs) args.push(this.encoded(spec));
    const prepared: Prepared = { key: call.key, args };
    const reply = this.batch
      ? await this.batch.add(prepared)
      : await this.evaluate(this.library.name, 1, [prepared.key, ...args]);
    return decodeReply(reply, call.specs.length);
  }

  private encoded(spec: PolicySpec): string {
    let text = this.encodedSpecs.get(spec);
    if (text === undefined) {
      text = encodeSpec(spec);
      this.encodedSpecs.set(spec, text);
    }
    return text;
  }

  /** One call alone as operate(); more as operateMany(), each call's error its own. */
  private async sendMany(calls: Prepared[]): Promise<unknown[]> {
    const only = calls.length === 1 ? calls[0] : undefined;
    if (only !== undefined) {
      return [await this.evaluate(this.library.name, 1, [only.key, ...only.args])];
    }
    const keysAndArgs = calls.map((call) => call.key);
    for (const call of calls) {
      keysAndArgs.push(String(call.args.length - ARGS_BEFORE_SPECS));
      for (const arg of call.args) keysAndArgs.push(arg);
    }
    const replies = await this.evaluate(this.library.manyName, calls.length, keysAndArgs);
    if (!Array.isArray(replies) || replies.length !== calls.length) {
      throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(replies)}`);
    }
    return replies.map((reply: unknown) =>
      typeof reply === 'string' && reply.startsWith('!') ? new Error(reply.slice(1)) : reply,
    );
  }

  /**
   * FCALL, and FUNCTION LOAD only on an explicit "Function not found": that reply means nothing
   * ran. Any other failure, a timeout above all, is never retried here, since it may have counted.
   */
  private async evaluate(fn: string, keys: number, keysAndArgs: string[]): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        const reply = this.client.fcall(fn, keys, ...keysAndArgs);
        const { timeoutMs } = this.options;
        return await (timeoutMs === undefined ? reply : withinDeadline(reply, timeoutMs));
      } catch (error) {
        const missing = error instanceof Error && error.message.includes('Function not found');
        if (!missing || attempt === LOAD_ATTEMPTS) throw error;
        await (this.loading ??= this.load().finally(() => (this.loading = undefined)));
      }
    }
  }

  /** Loads the library on the server, or on every master of a cluster. */
  private async load(): Promise<void> {
    const servers = 'nodes' in this.client ? this.client.nodes('master') : [this.client];
    await Promise.all(
      servers.map((server) => server.function('LOAD', 'REPLACE', this.library.functionSource)),
    );
  }
}
