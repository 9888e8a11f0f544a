import type { Cluster } from 'ioredis';
import { getOrAdd } from '../collections/get-or-add.js';
import { resultsOf, scriptCall, type BatchedCall } from './batched.call.js';
import { clusterSlot } from './cluster.slot.js';
import { withinDeadline } from './reply.deadline.js';
import type { ScriptRunner } from './script.runner.js';
import type { StoreResult } from './store.types.js';
import type { TurnBatch } from './turn.batch.js';

/**
 * Replies that say a Cluster node ran nothing of the call: the slot is served elsewhere, is
 * moving, or the cluster cannot serve it now. The call may be sent again.
 */
const NOT_RUN_ON_THIS_NODE = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;

/** Sends the calls of one slot in one script call; `timeoutMs` is what is left of their deadline. */
export type SendOneSlot = (
  calls: BatchedCall[],
  timeoutMs?: number,
) => Promise<Array<StoreResult | Error>>;

/**
 * A Cluster's side of the store: a batch per master (a script's keys must share a slot, and a
 * pipeline goes to one node), and each master's batch sent as one pipeline holding one script
 * call per slot its calls fall in. A slot whose call ran nowhere (its slot moved, the Lua not
 * loaded there) is sent again on its own; the others are never re-sent.
 */
export class ClusterDispatch {
  /** The batches, by the node serving the call's slot when the call was made. */
  private readonly batches = new Map<string, TurnBatch<BatchedCall, StoreResult>>();

  constructor(
    private readonly cluster: Cluster,
    private readonly runner: ScriptRunner,
    private readonly newBatch: (
      send: (calls: BatchedCall[]) => Promise<Array<StoreResult | Error>>,
    ) => TurnBatch<BatchedCall, StoreResult>,
    private readonly sendOneSlot: SendOneSlot,
    private readonly timeoutMs: number | undefined,
  ) {}

  /**
   * The batch of the master serving the call's slot, by the slot map the client holds now. A map
   * not yet loaded puts the call in a batch of its own name; the pipeline then finds the nodes.
   */
  batchOf(call: BatchedCall): TurnBatch<BatchedCall, StoreResult> {
    call.slot = clusterSlot(call.key);
    const master = this.cluster.slots[call.slot]?.[0] ?? '';
    return getOrAdd(this.batches, master, this.newMasterBatch);
  }

  /** getOrAdd's `create` for batchOf, made once rather than per call. */
  private readonly newMasterBatch = () => this.newBatch((calls) => this.sendToMaster(calls));

  /** One master's calls: one script call per slot, all in one pipeline (one write, one read). */
  private async sendToMaster(calls: BatchedCall[]): Promise<Array<StoreResult | Error>> {
    const groups = [...groupBy(calls, (call) => call.slot).values()];
    if (groups.length === 1) return this.sendOneSlot(calls);
    const mode = this.runner.mode;
    const pipeline = this.cluster.pipeline();
    for (const group of groups) {
      const { script, keys, keysAndArgs } = scriptCall(group);
      this.runner.queue(pipeline, mode, script, keys, keysAndArgs);
    }
    const { timeoutMs } = this;
    const sentAt = performance.now();
    let results: Array<[Error | null, unknown]>;
    try {
      const exec = pipeline.exec() as Promise<Array<[Error | null, unknown]>>;
      results = await (timeoutMs === undefined ? exec : withinDeadline(exec, timeoutMs));
    } catch (error) {
      // The client refuses, before sending anything, a pipeline whose slots its map no longer
      // puts on one node: the slot map changed since the calls were batched.
      if (!String(error).includes('same slots allocation group')) throw error;
      results = groups.map(() => [new Error('MOVED (slot map changed)'), undefined]);
    }
    // A slot sent again gets what is left of the deadline, not a new one.
    const left = () =>
      timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (performance.now() - sentAt));
    const replies = new Map<BatchedCall, StoreResult | Error>();
    await Promise.all(
      groups.map(async (group, index) => {
        const [error, reply] = results[index] ?? [new Error('sluice: no reply'), undefined];
        let groupReplies: Array<StoreResult | Error>;
        try {
          if (error === null) groupReplies = resultsOf(group, reply);
          else if (
            NOT_RUN_ON_THIS_NODE.test(error.message) ||
            this.runner.ranNothing(error, mode)
          ) {
            groupReplies = await this.sendOneSlot(group, left());
          } else groupReplies = group.map(() => error);
        } catch (failure) {
          // One slot's failure is its calls' alone: the other slots' calls ran, and count.
          groupReplies = group.map(() => toError(failure));
        }
        group.forEach((call, at) =>
          replies.set(call, groupReplies[at] ?? new Error('sluice: no reply')),
        );
      }),
    );
    return calls.map((call) => replies.get(call) as StoreResult | Error);
  }
}

function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) getOrAdd(groups, keyOf(item), () => []).push(item);
  return groups;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
