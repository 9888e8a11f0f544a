import type {
  Operation,
  PolicyOutcome,
  PolicySpec,
  SluiceStore,
  StoreCall,
} from '../store/store.types.js';
import type { CallTarget } from './call.target.js';

/** What an operation beyond the specs sends: a block's length, a grant's or settlement's units. */
export interface CallExtras {
  durationMs?: number;
  amount?: number;
  lease?: string;
  once?: string;
  undo?: boolean;
}

/** One store call on a target's key; its outcomes, one per spec. */
export async function runOn(
  store: SluiceStore,
  op: Operation,
  target: CallTarget,
  specs: PolicySpec[],
  extras: CallExtras = {},
): Promise<PolicyOutcome[]> {
  const call: StoreCall = { op, key: target.key, specs };
  if (extras.durationMs !== undefined) call.durationMs = extras.durationMs;
  if (extras.amount !== undefined) call.amount = extras.amount;
  if (extras.lease !== undefined) call.lease = extras.lease;
  if (extras.once !== undefined) call.once = extras.once;
  if (extras.undo !== undefined) call.undo = extras.undo;
  return (await store.run(call)).outcomes;
}
