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

/** One call as `operate`; more, whose keys share a slot, as `operateMany`. */
export function scriptCall(calls: readonly BatchedCall[]): {
  script: ScriptName;
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

/** Each call's reply in `reply`; `operateMany`'s error for one call as an Error of its own. */
export function repliesOf(calls: readonly BatchedCall[], reply: unknown): unknown[] {
  if (calls.length === 1) return [reply];
  if (!Array.isArray(reply) || reply.length !== calls.length) {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  return reply.map((each: unknown) =>
    typeof each === 'string' && each.startsWith('!') ? new Error(each.slice(1)) : each,
  );
}
