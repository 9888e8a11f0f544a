import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** One INFO reply as name → value, every section flattened. */
export type Info = Map<string, string>;

export async function info(admin: Redis, ...sections: string[]): Promise<Info> {
  const text = (await admin.call('INFO', ...sections)) as string;
  const fields: Info = new Map();
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  return fields;
}

export interface CommandStat {
  calls: number;
  usec: number;
}

/** `cmdstat_<name>:calls=…,usec=…` lines, by command name. */
export function commandStats(fields: Info): Map<string, CommandStat> {
  const stats = new Map<string, CommandStat>();
  for (const [key, value] of fields) {
    if (!key.startsWith('cmdstat_')) continue;
    const parts = new Map(value.split(',').map((pair) => pair.split('=') as [string, string]));
    stats.set(key.slice('cmdstat_'.length), {
      calls: Number(parts.get('calls')),
      usec: Number(parts.get('usec')),
    });
  }
  return stats;
}

const num = (fields: Info, name: string): number => Number(fields.get(name) ?? NaN);

function redisCpuSeconds(fields: Info): number {
  return num(fields, 'used_cpu_user_main_thread') + num(fields, 'used_cpu_sys_main_thread');
}

/** The Redis main thread's CPU seconds so far (user + sys), from INFO cpu. */
export async function redisCpuNow(admin: Redis): Promise<number> {
  return redisCpuSeconds(await info(admin, 'cpu'));
}

/**
 * µs of the Redis main thread's CPU per decision while `inFlight` loops each send one batch after
 * another (`send` resolves with the decisions it made): after `warmMs`, over `runMs`.
 */
export async function redisCpuPerDecision(
  admin: Redis,
  inFlight: number,
  send: () => Promise<number>,
  warmMs: number,
  runMs: number,
): Promise<number> {
  let decided = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      // Read after the await: `decided += await …` would add to a value read before it.
      const made = await send();
      decided += made;
    }
  };
  const loops = Array.from({ length: inFlight }, loop);
  await sleep(warmMs);
  const [cpuBefore, before] = [await redisCpuNow(admin), decided];
  await sleep(runMs);
  const [cpuAfter, after] = [await redisCpuNow(admin), decided];
  stop = true;
  await Promise.all(loops);
  return ((cpuAfter - cpuBefore) * 1e6) / (after - before);
}

export interface Run {
  /** Calls completed. */
  calls: number;
  ms: number;
  perSec: number;
  /** Calls whose answer was not an admission (must stay 0). */
  rejected: number;
  /** The script command's own figure from INFO commandstats (evalsha, or fcall). */
  usecPerCall: number;
  /** Script commands (the one measured) per call of `call`. */
  scriptCallsPerCall: number;
  /** Commands the script ran, per script call: name → calls and µs per script call. */
  inner: Map<string, { perCall: number; usecPerCall: number }>;
  /** Redis main-thread CPU (user + sys) per call, µs: unlike usec_per_call, not inflated when the server is descheduled. */
  redisCpuUs: number;
  /** This Node process's CPU per call, µs. */
  nodeCpuUs: number;
  netInBytes: number;
  netOutBytes: number;
  /** CPU the rest of the machine used meanwhile (all processes but this one and Redis's main thread), in cores. */
  otherCores: number;
}

/** Returns false for an answer that is not an admission. */
export type Call = (i: number) => Promise<boolean>;

export interface LoadShape {
  inFlight: number;
  /** Run for this long, or… */
  durationMs?: number;
  /** …this many calls. */
  calls?: number;
}

/** Keeps `inFlight` calls outstanding until the time or the count is up. */
export async function closedLoop(
  call: Call,
  shape: LoadShape,
): Promise<Pick<Run, 'calls' | 'ms' | 'perSec' | 'rejected'>> {
  let next = 0;
  let done = 0;
  let rejected = 0;
  const start = performance.now();
  const end = shape.durationMs === undefined ? Infinity : start + shape.durationMs;
  const limit = shape.calls ?? Infinity;
  const worker = async (): Promise<void> => {
    while (next < limit && performance.now() < end) {
      const admitted = await call(next++);
      done++;
      if (!admitted) rejected++;
    }
  };
  await Promise.all(Array.from({ length: shape.inFlight }, worker));
  const ms = performance.now() - start;
  return { calls: done, ms, perSec: (done / ms) * 1000, rejected };
}

/** Busy CPU seconds of the whole machine so far (Linux /proc/stat, USER_HZ = 100), or NaN. */
export function machineBusySeconds(): number {
  try {
    const first = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, user, nice, system, , , irq, softirq] = first.trim().split(/\s+/).map(Number);
    return (
      ((user ?? NaN) + (nice ?? NaN) + (system ?? NaN) + (irq ?? NaN) + (softirq ?? NaN)) / 100
    );
  } catch {
    return NaN;
  }
}

const NOT_INNER = new Set(['evalsha', 'eval', 'fcall', 'info', 'config|resetstat', 'script|load']);

/** Runs one contender with the server's statistics reset before and read after. */
export async function measure(
  admin: Redis,
  scriptCommand: 'evalsha' | 'fcall',
  call: Call,
  shape: LoadShape,
): Promise<Run> {
  await admin.config('RESETSTAT');
  const before = await info(admin, 'cpu', 'stats');
  const busy = machineBusySeconds();
  const cpu = process.cpuUsage();
  const loop = await closedLoop(call, shape);
  const nodeCpu = process.cpuUsage(cpu);
  const busyAfter = machineBusySeconds();
  const after = await info(admin, 'commandstats', 'cpu', 'stats');
  const stats = commandStats(after);
  const script = stats.get(scriptCommand) ?? { calls: 0, usec: 0 };
  // Per call of `call`: the store coalesces decisions, so one FCALL may carry many of them.
  const perCall = Math.max(1, loop.calls);
  const inner = new Map<string, { perCall: number; usecPerCall: number }>();
  for (const [name, stat] of stats) {
    if (NOT_INNER.has(name)) continue;
    inner.set(name, { perCall: stat.calls / perCall, usecPerCall: stat.usec / perCall });
  }
  const delta = (name: string) => num(after, name) - num(before, name);
  const redisCpu = redisCpuSeconds(after) - redisCpuSeconds(before);
  const ownCpu = (nodeCpu.user + nodeCpu.system) / 1e6 + redisCpu;
  return {
    ...loop,
    usecPerCall: script.usec / perCall,
    scriptCallsPerCall: script.calls / perCall,
    inner,
    redisCpuUs: (redisCpu * 1e6) / loop.calls,
    nodeCpuUs: (nodeCpu.user + nodeCpu.system) / loop.calls,
    netInBytes: delta('total_net_input_bytes') / loop.calls,
    netOutBytes: delta('total_net_output_bytes') / loop.calls,
    otherCores: Math.max(0, busyAfter - busy - ownCpu) / (loop.ms / 1000),
  };
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: NaN, min: NaN, max: NaN, n };
  const mid = Math.floor(n / 2);
  const median =
    n % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted[n - 1] as number, n };
}

/** RESP size of a command as the client writes it. */
export function respBytes(args: readonly (string | number)[]): number {
  let bytes = Buffer.byteLength(`*${args.length}\r\n`);
  for (const arg of args) {
    const length = Buffer.byteLength(String(arg));
    bytes += Buffer.byteLength(`$${length}\r\n`) + length + 2;
  }
  return bytes;
}

/** Waits, at most maxS seconds, until the rest of the machine uses under half a core; returns what it used. */
export async function waitForQuiet(maxS: number): Promise<{ waitedS: number; otherCores: number }> {
  const start = performance.now();
  for (;;) {
    const busy = machineBusySeconds();
    const cpu = process.cpuUsage();
    await sleep(1000);
    const own = process.cpuUsage(cpu);
    const otherCores = Math.max(0, machineBusySeconds() - busy - (own.user + own.system) / 1e6);
    const waitedS = (performance.now() - start) / 1000;
    if (!(otherCores > 0.5) || waitedS >= maxS) return { waitedS, otherCores };
  }
}
