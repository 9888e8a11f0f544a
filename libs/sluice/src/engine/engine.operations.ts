import type { BlockOperations } from './block.operations.js';
import type { ConsumeOperation } from './consume.operation.js';
import type { LeaseOperations } from './lease.operations.js';
import type { QuotaOperations } from './quota.operations.js';

/**
 * The engine's parts by job, each working on call targets: what a request's plan calls once it
 * has resolved its targets, so nothing is looked up twice (docs/architecture.md, "The engine").
 */
export interface EngineOperations {
  readonly consume: ConsumeOperation;
  readonly leases: LeaseOperations;
  readonly quotas: QuotaOperations;
  readonly blocks: BlockOperations;
}

const byEngine = new WeakMap<object, EngineOperations>();

/** Files an engine's parts; answers them. */
export function register(engine: object, operations: EngineOperations): EngineOperations {
  byEngine.set(engine, operations);
  return operations;
}

/**
 * The parts of `engine` (a SluiceEngine): the library's own path to the target operations,
 * kept off the engine's public surface.
 */
export function operationsOf(engine: object): EngineOperations {
  const operations = byEngine.get(engine);
  if (operations === undefined) throw new TypeError('operationsOf: not a SluiceEngine');
  return operations;
}
