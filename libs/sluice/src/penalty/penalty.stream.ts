import type { PenaltyEvent } from './penalty.event.js';

/** An entry of the stream: its id, and the event it holds (null when it holds none). */
export interface PenaltyStreamEntry {
  /** The stream entry's id. */
  entryId: string;
  /** The event, or null when the entry holds none this release can read. */
  event: PenaltyEvent | null;
}

/**
 * Where instances append penalty events and the admin consumes them with a consumer group
 * (docs/architecture.md, a penalty event): a Redis Stream, or this process alone without Redis. An entry read and not yet
 * acknowledged stays pending for its consumer, so nothing is lost when the reader fails.
 */
export interface PenaltyStream {
  /** Appends events in one call. */
  append(events: readonly PenaltyEvent[]): Promise<void>;
  /** Creates the group (reading from the stream's start) unless it exists. */
  ensureGroup(group: string): Promise<void>;
  /** Entries no consumer of the group has been given; waits up to blockMs for one. */
  readNew(
    group: string,
    consumer: string,
    count: number,
    blockMs: number,
  ): Promise<PenaltyStreamEntry[]>;
  /** Entries given to this consumer and not acknowledged. */
  readPending(group: string, consumer: string, count: number): Promise<PenaltyStreamEntry[]>;
  /** Takes over entries another consumer was given and left unacknowledged for minIdleMs. */
  claim(
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<PenaltyStreamEntry[]>;
  /** Acknowledges entries: they are recorded and need not be read again. */
  ack(group: string, entryIds: readonly string[]): Promise<void>;
  /** Lets go of the stream's connection. */
  close(): Promise<void>;
}
