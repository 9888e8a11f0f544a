import type { ScriptName } from './script.runner.js';

/** One call as the Lua's `operate` takes it: its key, and op, now, argument and the specs. */
export interface BatchedCall {
  key: string;
  args: string[];
  /** On a Cluster, the key's hash slot, computed once when the call is batched. */
  slot?: number;
}

/** op, now and the operation's argument come before the specs in a call's arguments. */
const ARGS_BEFORE_SPECS = 3;

/**
 * One call as `operate`; more, whose keys share a slot, as `operateMany`: each distinct spec once,
 * then one word per call, "op now argument" ('-' for none) and the 1-based indexes of its specs,
 * so a turn's calls of one policy send and decode its spec once (operations.lua, operateMany).
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
    words.push(word);
  }
  const keysAndArgs = calls.map((call) => call.key);
  keysAndArgs.push(String(specs.length));
  for (const spec of specs) keysAndArgs.push(spec);
  for (const word of words) keysAndArgs.push(word);
  return { script: 'many', keys: calls.length, keysAndArgs };
}

/**
 * Each call's reply in `reply`; `operateMany`'s error for one call as an Error of its own. Two
 * integers in a row are one call's short admission (remaining, reset), which `operateMany` puts in
 * the list flat (charge.ops.lua, consumeBatch).
 */
export function repliesOf(calls: readonly BatchedCall[], reply: unknown): unknown[] {
  if (calls.length === 1) return [reply];
  const replies: unknown[] = [];
  const list: unknown[] = Array.isArray(reply) ? reply : [];
  for (let at = 0; at < list.length; at++) {
    const each = list[at];
    if (typeof each === 'number') {
      replies.push([each, list[++at]]);
    } else {
      replies.push(
        typeof each === 'string' && each.startsWith('!') ? new Error(each.slice(1)) : each,
      );
    }
  }
  if (replies.length !== calls.length) {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  return replies;
}
