import type { ScriptName } from './script.runner.js';
import { decodeAdmission, decodeReply, readQuota } from './spec.codec.js';
import type { CallWatcher, StoreResult } from './store.types.js';

/** One call as the Lua's `operate` takes it: its key, and op, now, argument and the specs. */
export interface BatchedCall {
  key: string;
  args: string[];
  /** On a Cluster, the key's hash slot, computed once when the call is batched. */
  slot?: number;
  /** Told how the call ended, where the caller asked (RedisStore.runWatched). */
  watcher?: CallWatcher;
}

/** op, now and the operation's argument come before the specs in a call's arguments. */
const ARGS_BEFORE_SPECS = 3;

/**
 * One call as `operate`; more, whose keys share a slot, as `operateMany`: each distinct spec once,
 * then one word per call, "op now argument" ('-' for none) and the 1-based indexes of its specs,
 * so a turn's calls of one policy send and decode its spec once (operations.lua, operateMany).
 * Calls that all have the same word, the usual turn of one policy, send it once for all.
 */
export function scriptCall(calls: readonly BatchedCall[]): {
  script: ScriptName;
  keys: number;
  keysAndArgs: string[];
} {
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only !== undefined) return { script: 'one', keys: 1, keysAndArgs: [only.key, ...only.args] };
  const specIndex = new Map<string, number>();
  const specs: string[] = [];
  const words: string[] = [];
  let shared = true;
  for (const call of calls) {
    const args = call.args;
    let word = `${args[0]} ${args[1] || '-'} ${args[2] || '-'}`;
    for (let at = ARGS_BEFORE_SPECS; at < args.length; at++) {
      const spec = args[at] as string;
      let index = specIndex.get(spec);
      if (index === undefined) {
        index = specs.push(spec);
        specIndex.set(spec, index);
      }
      word += ` ${index}`;
    }
    if (words.length > 0 && word !== words[0]) shared = false;
    words.push(word);
  }
  const keysAndArgs = calls.map((call) => call.key);
  keysAndArgs.push(String(specs.length));
  for (const spec of specs) keysAndArgs.push(spec);
  if (shared) keysAndArgs.push(words[0] as string);
  else for (const word of words) keysAndArgs.push(word);
  return { script: 'many', keys: calls.length, keysAndArgs };
}

/**
 * Each call's result decoded from `reply`, or an Error of that call alone: `operateMany`'s error
 * for it, or an answer that does not read. Two integers in a row are one call's short admission
 * (remaining, reset), which `operateMany` puts in the list flat (charge.ops.lua, consumeBatch). A
 * reply without one answer per call throws: the whole send failed.
 */
export function resultsOf(
  calls: readonly BatchedCall[],
  reply: unknown,
): Array<StoreResult | Error> {
  const only = calls.length === 1 ? calls[0] : undefined;
  if (only !== undefined) return [resultOf(only, reply, undefined)];
  const results: Array<StoreResult | Error> = [];
  const list: unknown[] = Array.isArray(reply) ? reply : [];
  let at = 0;
  for (; at < list.length && results.length < calls.length; at++) {
    const call = calls[results.length] as BatchedCall;
    const each = list[at];
    if (typeof each === 'number') results.push(resultOf(call, each, list[++at]));
    else if (typeof each === 'string' && each.startsWith('!'))
      results.push(new Error(each.slice(1)));
    else results.push(resultOf(call, each, undefined));
  }
  if (results.length !== calls.length || at !== list.length) {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  return results;
}

/**
 * One call's answer decoded: a short admission when `reset` follows it in the list, else its
 * reply; a grant's or a settlement's carries its quota.
 */
function resultOf(call: BatchedCall, answer: unknown, reset: unknown): StoreResult | Error {
  const policies = call.args.length - ARGS_BEFORE_SPECS;
  try {
    if (reset !== undefined || typeof answer === 'number') {
      if (policies !== 1) throw unreadable([answer, reset]);
      return decodeAdmission(answer, reset);
    }
    const result = decodeReply(answer, policies);
    const op = call.args[0];
    if (op === 'grant' || op === 'settle')
      for (const outcome of result.outcomes) readQuota(outcome);
    return result;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

const unreadable = (answer: unknown): Error =>
  new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(answer)}`);
