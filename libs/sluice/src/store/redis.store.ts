import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/clock.js';
import { loadOperationsScript, type LuaScript } from './script.source.js';
import { decodeReply, encodeSpec } from './spec.codec.js';
import type { SluiceStore, StoreCall, StoreResult } from './store.types.js';

export interface RedisStoreOptions {
  /**
   * For tests only: decide at this clock's time instead of Redis TIME. In production every
   * decision takes its time from Redis, so instances whose clocks drift still agree.
   */
  clock?: Clock;
}

let script: LuaScript | undefined;

/** Decides in Redis (a single server or a Cluster): one EVALSHA per call. */
export class RedisStore implements SluiceStore {
  private readonly script = (script ??= loadOperationsScript());

  constructor(
    private readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {}

  async run(call: StoreCall): Promise<StoreResult> {
    const args = [
      call.op,
      this.options.clock ? String(this.options.clock()) : '',
      String(call.durationMs ?? 0),
      ...call.specs.map(encodeSpec),
    ];
    return decodeReply(await this.evaluate(call.key, args), call.specs.length);
  }

  /**
   * EVALSHA, and EVAL only on an explicit NOSCRIPT: that reply means the script did not run.
   * Any other failure, a timeout above all, is never retried here, since it may have counted.
   */
  private async evaluate(key: string, args: string[]): Promise<unknown> {
    try {
      return await this.client.evalsha(this.script.sha, 1, key, ...args);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return this.client.eval(this.script.source, 1, key, ...args);
      }
      throw error;
    }
  }
}
