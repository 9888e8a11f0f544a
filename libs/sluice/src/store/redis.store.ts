import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/clock.js';
import { loadLuaLibrary, type LuaLibrary } from './script.source.js';
import { decodeReply, encodeSpec } from './spec.codec.js';
import type { PolicySpec, SluiceStore, StoreCall, StoreResult } from './store.types.js';

export interface RedisStoreOptions {
  /**
   * For tests only: decide at this clock's time instead of Redis TIME. In production every
   * decision takes its time from Redis, so instances whose clocks drift still agree.
   */
  clock?: Clock;
}

let library: LuaLibrary | undefined;
/** A flush can land between a load and the call after it; each "not found" means nothing ran. */
const LOAD_ATTEMPTS = 3;

/**
 * Decides in Redis 7 or later (a single server or a Cluster): one FCALL per call. The Lua is a
 * Redis function library, so its definitions run once when loaded rather than on every call.
 */
export class RedisStore implements SluiceStore {
  private readonly library = (library ??= loadLuaLibrary());
  private loading: Promise<void> | undefined;
  /** Engines reuse their spec objects, so each is encoded once. */
  private readonly encodedSpecs = new WeakMap<PolicySpec, string>();

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {}

  async run(call: StoreCall): Promise<StoreResult> {
    const args = [
      call.op,
      this.options.clock ? String(this.options.clock()) : '',
      String(call.durationMs ?? 0),
      ...call.specs.map((spec) => this.encoded(spec)),
    ];
    return decodeReply(await this.evaluate(call.key, args), call.specs.length);
  }

  private encoded(spec: PolicySpec): string {
    let text = this.encodedSpecs.get(spec);
    if (text === undefined) {
      text = encodeSpec(spec);
      this.encodedSpecs.set(spec, text);
    }
    return text;
  }

  /**
   * FCALL, and FUNCTION LOAD only on an explicit "Function not found": that reply means nothing
   * ran. Any other failure, a timeout above all, is never retried here, since it may have counted.
   */
  private async evaluate(key: string, args: string[]): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.fcall(this.library.name, 1, key, ...args);
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
