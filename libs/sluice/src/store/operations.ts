import { consumeOp, syncOp } from './charge.ops.js';
import { keyOp } from './key.ops.js';
import { quotaOp, releaseOp } from './quota.ops.js';
import { callState, type CallState, type StateAccess } from './state.js';
import type { Operation, StoreCall, StoreResult } from './store.types.js';

// The TypeScript twin of operations.lua, over any keyed state with TTLs: each operation by its
// name, from its family's file (charge.ops, quota.ops, key.ops beside their Lua twins).

export type { StateAccess } from './state.js';
export { CANDIDATE_SUFFIX, candidateOf } from './decide.js';

const OPERATIONS: Record<Operation, (state: CallState) => StoreResult> = {
  consume: consumeOp,
  peek: consumeOp,
  sync: syncOp,
  grant: quotaOp,
  settle: quotaOp,
  release: releaseOp,
  refund: keyOp,
  reset: keyOp,
  block: keyOp,
  unblock: keyOp,
  forget: keyOp,
};

export function runOperation(access: StateAccess, call: StoreCall, now: number): StoreResult {
  const run = OPERATIONS[call.op];
  if (run === undefined) throw new Error(`sluice: unknown operation ${String(call.op)}`);
  return run(callState(access, call, now));
}
