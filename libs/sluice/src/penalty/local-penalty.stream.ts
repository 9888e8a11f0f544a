import type { PenaltyEvent } from './penalty.event.js';
import type { PenaltyStream, PenaltyStreamEntry } from './penalty.stream.js';

const MAX_ENTRIES = 100_000;

interface GroupState {
  /** The sequence number of the last entry handed out. */
  lastDelivered: number;
  /** Entries handed out and not acknowledged, by id, with their consumer. */
  pending: Map<string, string>;
}

/**
 * Without Redis, the stream lives in this process: the same consumer-group contract over an
 * array, for an admin running beside the in-memory store.
 */
export class LocalPenaltyStream implements PenaltyStream {
  private readonly entries: Array<{ seq: number; entry: PenaltyStreamEntry }> = [];
  private readonly groups = new Map<string, GroupState>();
  private nextSeq = 1;
  private wake: (() => void) | undefined;

  append(events: readonly PenaltyEvent[]): Promise<void> {
    for (const event of events) {
      const seq = this.nextSeq++;
      this.entries.push({ seq, entry: { entryId: `${seq}-0`, event: structuredClone(event) } });
    }
    if (this.entries.length > MAX_ENTRIES)
      this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    this.wake?.();
    return Promise.resolve();
  }

  ensureGroup(group: string): Promise<void> {
    if (!this.groups.has(group)) this.groups.set(group, { lastDelivered: 0, pending: new Map() });
    return Promise.resolve();
  }

  async readNew(
    group: string,
    consumer: string,
    count: number,
    blockMs: number,
  ): Promise<PenaltyStreamEntry[]> {
    const state = this.group(group);
    if (!this.entries.some(({ seq }) => seq > state.lastDelivered) && blockMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, blockMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const fresh = this.entries.filter(({ seq }) => seq > state.lastDelivered).slice(0, count);
    for (const { seq, entry } of fresh) {
      state.lastDelivered = seq;
      state.pending.set(entry.entryId, consumer);
    }
    return fresh.map(({ entry }) => entry);
  }

  readPending(group: string, consumer: string, count: number): Promise<PenaltyStreamEntry[]> {
    const { pending } = this.group(group);
    const mine = this.entries.filter(({ entry }) => pending.get(entry.entryId) === consumer);
    return Promise.resolve(mine.slice(0, count).map(({ entry }) => entry));
  }

  /** One process, one consumer: nothing is ever left to another. */
  claim(): Promise<PenaltyStreamEntry[]> {
    return Promise.resolve([]);
  }

  ack(group: string, entryIds: readonly string[]): Promise<void> {
    const { pending } = this.group(group);
    for (const id of entryIds) pending.delete(id);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.wake?.();
    return Promise.resolve();
  }

  private group(name: string): GroupState {
    const state = this.groups.get(name);
    if (state === undefined) throw new Error(`NOGROUP no consumer group named ${name}`);
    return state;
  }
}
