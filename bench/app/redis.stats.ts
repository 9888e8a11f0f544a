import type { Redis } from 'ioredis';
import { commandStats, info } from '../engine/measure.js';

/** Commands that carry one decision each: a script call is one round trip. */
const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
/** The harness's own commands. */
const HARNESS_COMMANDS = new Set(['info', 'config|resetstat', 'flushall']);

export interface RedisSnapshot {
  calls: Map<string, number>;
  /** µs Redis spent inside each command, from INFO commandstats. */
  usec: Map<string, number>;
  netIn: number;
  netOut: number;
  cpuS: number;
}

/** Redis's use per request between two snapshots. */
export interface RedisUsage {
  /** EVAL / EVALSHA / FCALL calls: round trips that decide. */
  scriptCalls: number;
  /** Every command Redis ran, those run inside scripts included (the harness's own left out). */
  commands: number;
  /** Bytes Redis received (the requests' commands) and sent back. */
  bytesIn: number;
  bytesOut: number;
  /** Redis main-thread CPU, µs. */
  cpuUs: number;
  /** µs inside script calls (INFO commandstats): the decisions' own work, without the network's. */
  scriptUs: number;
  /** Calls per request of each command. */
  byCommand: Record<string, number>;
}

export async function redisSnapshot(admin: Redis): Promise<RedisSnapshot> {
  const fields = await info(admin, 'commandstats', 'stats', 'cpu');
  const calls = new Map<string, number>();
  const usec = new Map<string, number>();
  for (const [name, stat] of commandStats(fields)) {
    calls.set(name, stat.calls);
    usec.set(name, stat.usec);
  }
  const number = (name: string) => Number(fields.get(name) ?? NaN);
  return {
    calls,
    usec,
    netIn: number('total_net_input_bytes'),
    netOut: number('total_net_output_bytes'),
    cpuS: number('used_cpu_user_main_thread') + number('used_cpu_sys_main_thread'),
  };
}

export function redisUsage(
  before: RedisSnapshot,
  after: RedisSnapshot,
  requests: number,
): RedisUsage {
  const per = (value: number) => value / Math.max(1, requests);
  const byCommand: Record<string, number> = {};
  let scriptCalls = 0;
  let scriptUs = 0;
  let commands = 0;
  for (const [name, calls] of after.calls) {
    if (HARNESS_COMMANDS.has(name)) continue;
    const made = calls - (before.calls.get(name) ?? 0);
    if (made <= 0) continue;
    byCommand[name] = per(made);
    commands += made;
    if (SCRIPT_COMMANDS.has(name)) {
      scriptCalls += made;
      scriptUs += (after.usec.get(name) ?? 0) - (before.usec.get(name) ?? 0);
    }
  }
  return {
    scriptCalls: per(scriptCalls),
    commands: per(commands),
    bytesIn: per(after.netIn - before.netIn),
    bytesOut: per(after.netOut - before.netOut),
    cpuUs: per((after.cpuS - before.cpuS) * 1e6),
    scriptUs: per(scriptUs),
    byCommand,
  };
}
