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
  /**
   * How the Lua runs. 'function' (FUNCTION LOAD, then FCALL) or 'eval' (SCRIPT LOAD, then
   * EVALSHA), or 'auto' (the default): functions, unless the server has none or its ACL forbids
   * them, and EVALSHA from then on. docs/architecture.md, "Choices worth knowing", compares them.
   */
  scripting?: 'auto' | ScriptingMode;
}

/** How a RedisStore runs its Lua: as a function library or as EVAL scripts. */
export type ScriptingMode = 'function' | 'eval';

/**
 * Replies that say the server runs no functions for us: a Redis without FCALL, or an ACL that
 * forbids FCALL or FUNCTION LOAD. Each comes before anything ran.
 */
const FUNCTIONS_REFUSED = [
  /^NOPERM .*'(fcall|fcall_ro|function\|load)' command/,
  /unknown command [`'](fcall|function)[`']/i,
];

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
  /** The load under way, per mode: concurrent calls that find the Lua missing share one. */
  private readonly loading = new Map<ScriptingMode, Promise<void>>();
  /** Engines reuse their spec objects, so each is encoded once. */
  private readonly encodedSpecs = new WeakMap<PolicySpec, string>();
  private readonly batch: TurnBatch<Prepared, unknown> | undefined;
  private mode: ScriptingMode;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    this.mode = options.scripting === 'eval' ? 'eval' : 'function';
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
      : await this.evaluate('one', 1, [prepared.key, ...args]);
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
      return [await this.evaluate('one', 1, [only.key, ...only.args])];
    }
    const keysAndArgs = calls.map((call) => call.key);
    for (const call of calls) {
      keysAndArgs.push(String(call.args.length - ARGS_BEFORE_SPECS));
      for (const arg of call.args) keysAndArgs.push(arg);
    }
    const replies = await this.evaluate('many', calls.length, keysAndArgs);
    if (!Array.isArray(replies) || replies.length !== calls.length) {
      throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(replies)}`);
    }
    return replies.map((reply: unknown) =>
      typeof reply === 'string' && reply.startsWith('!') ? new Error(reply.slice(1)) : reply,
    );
  }

  /** How the Lua runs now: 'auto' settles on the first call that needs to know. */
  get scripting(): ScriptingMode {
    return this.mode;
  }

  /**
   * Loads the Lua before the first call needs it, settling 'auto'. Nothing is lost when it
   * fails: the first call loads it then.
   */
  async prepare(): Promise<ScriptingMode> {
    await this.loadFor(this.mode);
    return this.mode;
  }

  /**
   * FCALL or EVALSHA, and a load only on a reply that says nothing ran: "Function not found",
   * NOSCRIPT, or functions refused (then, under 'auto', EVALSHA from now on). Any other failure,
   * a timeout above all, is never retried here, since it may have counted.
   */
  private async evaluate(
    script: 'one' | 'many',
    keys: number,
    keysAndArgs: string[],
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const mode = this.mode;
      try {
        const reply =
          mode === 'function'
            ? this.client.fcall(
                script === 'one' ? this.library.name : this.library.manyName,
                keys,
                ...keysAndArgs,
              )
            : this.client.evalsha(this.library.evalScripts[script].sha, keys, ...keysAndArgs);
        const { timeoutMs } = this.options;
        return await (timeoutMs === undefined ? reply : withinDeadline(reply, timeoutMs));
      } catch (error) {
        if (attempt === LOAD_ATTEMPTS) throw error;
        if (mode === 'function' && this.mayFallBack(error)) {
          this.mode = 'eval';
        } else if (nothingRan(error, mode)) {
          await this.loadFor(mode);
        } else {
          throw error;
        }
      }
    }
  }

  /** Under 'auto', whether `error` says this server runs no functions for us. */
  private mayFallBack(error: unknown): boolean {
    if (this.options.scripting !== undefined && this.options.scripting !== 'auto') return false;
    const message = error instanceof Error ? error.message : '';
    return FUNCTIONS_REFUSED.some((refusal) => refusal.test(message));
  }

  /** One load at a time; a load that finds functions refused settles 'auto' on EVALSHA. */
  private async loadFor(mode: ScriptingMode): Promise<void> {
    try {
      let load = this.loading.get(mode);
      if (load === undefined) {
        load = this.load(mode).finally(() => this.loading.delete(mode));
        this.loading.set(mode, load);
      }
      await load;
    } catch (error) {
      if (mode !== 'function' || !this.mayFallBack(error)) throw error;
      this.mode = 'eval';
      await this.loadFor('eval');
    }
  }

  /** Loads the library, or both scripts, on the server or on every master of a cluster. */
  private async load(mode: ScriptingMode): Promise<void> {
    const servers = 'nodes' in this.client ? this.client.nodes('master') : [this.client];
    const { one, many } = this.library.evalScripts;
    await Promise.all(
      servers.map((server) =>
        mode === 'function'
          ? server.function('LOAD', 'REPLACE', this.library.functionSource)
          : Promise.all([server.script('LOAD', one.source), server.script('LOAD', many.source)]),
      ),
    );
  }
}

/** A reply that means the call never ran: the Lua is not loaded on that server. */
function nothingRan(error: unknown, mode: ScriptingMode): boolean {
  const message = error instanceof Error ? error.message : '';
  return mode === 'function'
    ? message.includes('Function not found')
    : message.startsWith('NOSCRIPT');
}
