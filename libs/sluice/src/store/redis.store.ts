import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/clock.js';
import { getOrAdd } from '../collections/get-or-add.js';
import { clusterSlot } from './cluster.slot.js';
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
  /** On a Cluster, the key's hash slot, computed once when the call is batched. */
  slot?: number;
}

let library: LuaLibrary | undefined;
/** A flush can land between a load and the call after it; each "not found" means nothing ran. */
const LOAD_ATTEMPTS = 3;
/**
 * Calls per FCALL at most, by default: bounds how long one FCALL holds the server. It and the hold
 * are measured in docs/benchmarks.md ("Batch size and hold").
 */
const MAX_CALLS_PER_FCALL = 64;
/** How long a call may wait for the FCALL already out to come back before it is sent anyway. */
const MAX_HOLD_MS = 1;
/** op, now and durationMs come before the specs in a call's arguments. */
const ARGS_BEFORE_SPECS = 3;

/**
 * Replies that say a Cluster node ran nothing of the call: the slot is served elsewhere, is
 * moving, or the cluster cannot serve it now. The call may be sent again.
 */
const NOT_RUN_ON_THIS_NODE = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;

/**
 * Decides in Redis 7 or later (a single server or a Cluster). The Lua is a Redis function
 * library, so its definitions run once when loaded rather than on every call. Calls are
 * coalesced (TurnBatch) per connection: those made in the same turn of the event loop, and those
 * made while the previous send is out (for at most MAX_HOLD_MS), go together, decided one after
 * the other in operateMany. On a single server they are one FCALL: one write, one read and one
 * script start for all of them. On a Cluster a script's keys must share a slot, so each master
 * gets one pipeline per send, holding one FCALL per slot its calls fall in (an identifier's keys
 * share one slot). Each call is still in exactly one FCALL.
 */
export class RedisStore implements SluiceStore {
  private readonly library = (library ??= loadLuaLibrary());
  /** The load under way, per mode: concurrent calls that find the Lua missing share one. */
  private readonly loading = new Map<ScriptingMode, Promise<void>>();
  /** Engines reuse their spec objects, so each is encoded once. */
  private readonly encodedSpecs = new WeakMap<PolicySpec, string>();
  /** The single server's batch; undefined on a Cluster, whose batches are per master. */
  private readonly batch: TurnBatch<Prepared, unknown> | undefined;
  /** A Cluster's batches, by the node serving the call's slot when the call was made. */
  private readonly masterBatches = new Map<string, TurnBatch<Prepared, unknown>>();
  private mode: ScriptingMode;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    assertBatchLimits(options.batch, 'RedisStore options.batch');
    this.mode = options.scripting === 'eval' ? 'eval' : 'function';
    if (!('nodes' in client)) this.batch = this.newBatch((calls) => this.sendMany(calls));
  }

  private newBatch(send: (calls: Prepared[]) => Promise<unknown[]>): TurnBatch<Prepared, unknown> {
    return new TurnBatch(send, {
      maxItems: this.options.batch?.maxCalls ?? MAX_CALLS_PER_FCALL,
      maxHoldMs: this.options.batch?.holdMs ?? MAX_HOLD_MS,
    });
  }

  async run(call: StoreCall): Promise<StoreResult> {
    const args = [
      call.op,
      this.options.clock ? String(this.options.clock()) : '',
      String(call.durationMs ?? 0),
    ];
    for (const spec of call.specs) args.push(this.encoded(spec));
    const prepared: Prepared = { key: call.key, args };
    const reply = await (this.batch ?? this.batchOfMaster(prepared)).add(prepared);
    return decodeReply(reply, call.specs.length);
  }

  /**
   * The batch of the master serving `key`'s slot, by the slot map the client holds now. A map
   * not yet loaded puts the call in a batch of its own name; the pipeline then finds the nodes.
   */
  private batchOfMaster(prepared: Prepared): TurnBatch<Prepared, unknown> {
    prepared.slot = clusterSlot(prepared.key);
    const master = (this.client as Cluster).slots[prepared.slot]?.[0] ?? '';
    return getOrAdd(this.masterBatches, master, this.newMasterBatch);
  }

  /** getOrAdd's `create` for batchOfMaster, made once rather than per call. */
  private readonly newMasterBatch = () => this.newBatch((calls) => this.sendToMaster(calls));

  private encoded(spec: PolicySpec): string {
    let text = this.encodedSpecs.get(spec);
    if (text === undefined) {
      text = encodeSpec(spec);
      this.encodedSpecs.set(spec, text);
    }
    return text;
  }

  /**
   * Calls whose keys share a slot, in one FCALL; each call's error is its own. `timeoutMs`: what
   * is left of the calls' deadline, when part of it is spent already.
   */
  private async sendMany(
    calls: Prepared[],
    timeoutMs = this.options.timeoutMs,
  ): Promise<unknown[]> {
    const { script, keys, keysAndArgs } = scriptCall(calls);
    return repliesOf(calls, await this.evaluate(script, keys, keysAndArgs, timeoutMs));
  }

  /**
   * One master's calls: one FCALL per slot, all in one pipeline (one write, one read). A slot
   * whose FCALL ran nowhere (its slot moved, the Lua not loaded there) is sent again on its own,
   * through the client's redirections and this store's loading; the others are never re-sent.
   */
  private async sendToMaster(calls: Prepared[]): Promise<unknown[]> {
    const groups = [...groupBy(calls, (call) => call.slot).values()];
    if (groups.length === 1) return this.sendMany(calls);
    const mode = this.mode;
    const pipeline = (this.client as Cluster).pipeline();
    for (const group of groups) {
      const { script, keys, keysAndArgs } = scriptCall(group);
      if (mode === 'function') {
        pipeline.fcall(this.functionName(script), keys, ...keysAndArgs);
      } else {
        pipeline.evalsha(this.library.evalScripts[script].sha, keys, ...keysAndArgs);
      }
    }
    const { timeoutMs } = this.options;
    const sentAt = performance.now();
    let results: Array<[Error | null, unknown]>;
    try {
      const exec = pipeline.exec() as Promise<Array<[Error | null, unknown]>>;
      results = await (timeoutMs === undefined ? exec : withinDeadline(exec, timeoutMs));
    } catch (error) {
      // The client refuses, before sending anything, a pipeline whose slots its map no longer
      // puts on one node: the slot map changed since the calls were batched.
      if (!String(error).includes('same slots allocation group')) throw error;
      results = groups.map(() => [new Error('MOVED (slot map changed)'), undefined]);
    }
    // A slot sent again gets what is left of the deadline, not a new one.
    const left = () =>
      timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (performance.now() - sentAt));
    const replies = new Map<Prepared, unknown>();
    await Promise.all(
      groups.map(async (group, index) => {
        const [error, reply] = results[index] ?? [new Error('sluice: no reply'), undefined];
        let groupReplies: unknown[];
        try {
          if (error === null) groupReplies = repliesOf(group, reply);
          else if (NOT_RUN_ON_THIS_NODE.test(error.message) || this.ranNothing(error, mode)) {
            groupReplies = await this.sendMany(group, left());
          } else groupReplies = group.map(() => error);
        } catch (failure) {
          // One slot's failure is its calls' alone: the other slots' FCALLs ran, and count.
          groupReplies = group.map(() => toError(failure));
        }
        group.forEach((call, at) => replies.set(call, groupReplies[at]));
      }),
    );
    return calls.map((call) => replies.get(call));
  }

  private functionName(script: 'one' | 'many'): string {
    return script === 'one' ? this.library.name : this.library.manyName;
  }

  /** Whether `error`, a reply to a call made in `mode`, says the call ran nothing. */
  private ranNothing(error: Error, mode: ScriptingMode): boolean {
    return nothingRan(error, mode) || (mode === 'function' && this.mayFallBack(error));
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
    timeoutMs = this.options.timeoutMs,
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const mode = this.mode;
      try {
        const reply =
          mode === 'function'
            ? this.client.fcall(this.functionName(script), keys, ...keysAndArgs)
            : this.client.evalsha(this.library.evalScripts[script].sha, keys, ...keysAndArgs);
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

/** One call as operate(); more, whose keys share a slot, as operateMany(). */
function scriptCall(calls: Prepared[]): {
  script: 'one' | 'many';
  keys: number;
  keysAndArgs: string[];
} {
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only !== undefined) return { script: 'one', keys: 1, keysAndArgs: [only.key, ...only.args] };
  const keysAndArgs = calls.map((call) => call.key);
  for (const call of calls) {
    keysAndArgs.push(String(call.args.length - ARGS_BEFORE_SPECS));
    for (const arg of call.args) keysAndArgs.push(arg);
  }
  return { script: 'many', keys: calls.length, keysAndArgs };
}

/** Each call's reply in `reply`, operateMany's error for one call as an Error of its own. */
function repliesOf(calls: Prepared[], reply: unknown): unknown[] {
  if (calls.length === 1) return [reply];
  if (!Array.isArray(reply) || reply.length !== calls.length) {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  return reply.map((each: unknown) =>
    typeof each === 'string' && each.startsWith('!') ? new Error(each.slice(1)) : each,
  );
}

function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) getOrAdd(groups, keyOf(item), () => []).push(item);
  return groups;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** A reply that means the call never ran: the Lua is not loaded on that server. */
function nothingRan(error: unknown, mode: ScriptingMode): boolean {
  const message = error instanceof Error ? error.message : '';
  return mode === 'function'
    ? message.includes('Function not found')
    : message.startsWith('NOSCRIPT');
}
