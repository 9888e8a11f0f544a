import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { withinDeadline } from './reply.deadline.js';
import { loadLuaLibrary, type LuaLibrary } from './script.source.js';

/** How a RedisStore runs its Lua: as a function library or as EVAL scripts. */
export type ScriptingMode = 'function' | 'eval';

/** The library's two entry points: one call (`operate`) or several of one slot (`operateMany`). */
export type ScriptName = 'one' | 'many';

/**
 * Replies that say the server runs no functions for us: a Redis without FCALL, or an ACL that
 * forbids FCALL or FUNCTION LOAD. Each comes before anything ran.
 */
const FUNCTIONS_REFUSED = [
  /^NOPERM .*'(fcall|fcall_ro|function\|load)' command/,
  /unknown command [`'](fcall|function)[`']/i,
];

/** A flush can land between a load and the call after it; each "not found" means nothing ran. */
const LOAD_ATTEMPTS = 3;

let library: LuaLibrary | undefined;

/**
 * Runs the Lua on a server or a Cluster: FCALL of the function library, or EVALSHA of the two
 * scripts. The library is loaded only on a reply that says nothing ran ("Function not found",
 * NOSCRIPT), one load at a time; under 'auto', a server that refuses functions moves it to
 * EVALSHA for good. Any other failure, a timeout above all, is never retried, since it may have
 * counted (docs/architecture.md, "Rules of the hot path").
 */
export class ScriptRunner {
  private readonly library = (library ??= loadLuaLibrary());
  /** The load under way, per mode: concurrent calls that find the Lua missing share one. */
  private readonly loading = new Map<ScriptingMode, Promise<void>>();
  private current: ScriptingMode;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly scripting: 'auto' | ScriptingMode = 'auto',
  ) {
    this.current = scripting === 'eval' ? 'eval' : 'function';
  }

  /** How the Lua runs now: 'auto' settles on the first call that needs to know. */
  get mode(): ScriptingMode {
    return this.current;
  }

  /** Loads the Lua before the first call needs it, settling 'auto'. */
  async prepare(): Promise<ScriptingMode> {
    await this.loadFor(this.current);
    return this.current;
  }

  /** Runs `script`, loading the Lua (or falling back to EVALSHA) when a reply says nothing ran. */
  async run(
    script: ScriptName,
    keys: number,
    keysAndArgs: string[],
    timeoutMs: number | undefined,
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const mode = this.current;
      try {
        const reply =
          mode === 'function'
            ? this.client.fcall(this.functionName(script), keys, ...keysAndArgs)
            : this.client.evalsha(this.library.evalScripts[script].sha, keys, ...keysAndArgs);
        return await (timeoutMs === undefined ? reply : withinDeadline(reply, timeoutMs));
      } catch (error) {
        if (attempt === LOAD_ATTEMPTS) throw error;
        if (mode === 'function' && this.mayFallBack(error)) {
          this.current = 'eval';
        } else if (nothingRan(error, mode)) {
          await this.loadFor(mode);
        } else {
          throw error;
        }
      }
    }
  }

  /** Adds `script` to a pipeline as `mode` runs it; `ranNothing` reads its reply's error. */
  queue(
    pipeline: ChainableCommander,
    mode: ScriptingMode,
    script: ScriptName,
    keys: number,
    keysAndArgs: string[],
  ): void {
    if (mode === 'function') pipeline.fcall(this.functionName(script), keys, ...keysAndArgs);
    else pipeline.evalsha(this.library.evalScripts[script].sha, keys, ...keysAndArgs);
  }

  /** Whether `error`, a reply to a call made in `mode`, says the call ran nothing. */
  ranNothing(error: Error, mode: ScriptingMode): boolean {
    return nothingRan(error, mode) || (mode === 'function' && this.mayFallBack(error));
  }

  private functionName(script: ScriptName): string {
    return script === 'one' ? this.library.name : this.library.manyName;
  }

  /** Under 'auto', whether `error` says this server runs no functions for us. */
  private mayFallBack(error: unknown): boolean {
    if (this.scripting !== 'auto') return false;
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
      this.current = 'eval';
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
