import type { Cluster, Redis } from 'ioredis';
import { parsePenaltyEvent, type PenaltyEvent } from './penalty.event.js';
import type { PenaltyStream, PenaltyStreamEntry } from './penalty.stream.js';

/** About 100 000 events kept: a few days of heavy abuse, ~30 MB; older ones are trimmed. */
const MAX_ENTRIES = 100_000;
/** A blocking read may wait this much longer than it asked before its connection gives up. */
const READ_TIMEOUT_MARGIN_MS = 5_000;

type RawEntry = [id: string, fields: string[]];

/**
 * `<prefix>:penalty-events`, one field `e` per entry holding the event's JSON. One key, so a
 * Cluster keeps it on one master. Blocking reads use a connection of their own, so a read that
 * waits for events never holds up the decisions on the shared one.
 */
export class RedisPenaltyStream implements PenaltyStream {
  readonly key: string;
  private reader: Redis | Cluster | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    prefix: string,
  ) {
    this.key = `${prefix}:penalty-events`;
  }

  async append(events: readonly PenaltyEvent[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.client.pipeline();
    for (const event of events) {
      pipeline.xadd(this.key, 'MAXLEN', '~', MAX_ENTRIES, '*', 'e', JSON.stringify(event));
    }
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }

  async ensureGroup(group: string): Promise<void> {
    try {
      await this.client.xgroup('CREATE', this.key, group, '0', 'MKSTREAM');
    } catch (error) {
      if (!/BUSYGROUP/.test((error as Error).message)) throw error;
    }
  }

  readNew(
    group: string,
    consumer: string,
    count: number,
    blockMs: number,
  ): Promise<PenaltyStreamEntry[]> {
    return this.readGroup(this.readerFor(blockMs), group, consumer, count, ['BLOCK', blockMs], '>');
  }

  /** Entry id 0: this consumer's entries read and not acknowledged. */
  readPending(group: string, consumer: string, count: number): Promise<PenaltyStreamEntry[]> {
    return this.readGroup(this.client, group, consumer, count, [], '0');
  }

  private async readGroup(
    client: Redis | Cluster,
    group: string,
    consumer: string,
    count: number,
    options: Array<string | number>,
    from: string,
  ): Promise<PenaltyStreamEntry[]> {
    const reply = (await client.call(
      'XREADGROUP',
      'GROUP',
      group,
      consumer,
      'COUNT',
      count,
      ...options,
      'STREAMS',
      this.key,
      from,
    )) as StreamsReply;
    return entries(entriesOf(reply));
  }

  async claim(
    group: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<PenaltyStreamEntry[]> {
    const reply = (await this.client.call(
      'XAUTOCLAIM',
      this.key,
      group,
      consumer,
      minIdleMs,
      '0-0',
      'COUNT',
      count,
    )) as [string, Array<RawEntry | null>];
    return entries(reply[1]);
  }

  async ack(group: string, entryIds: readonly string[]): Promise<void> {
    if (entryIds.length > 0) await this.client.xack(this.key, group, ...entryIds);
  }

  close(): Promise<void> {
    const reader = this.reader;
    this.reader = undefined;
    if (reader !== undefined && reader.status !== 'end') reader.disconnect();
    return Promise.resolve();
  }

  private readerFor(blockMs: number): Redis | Cluster {
    if (this.reader !== undefined) return this.reader;
    const commandTimeout = blockMs + READ_TIMEOUT_MARGIN_MS;
    // A read waits for the reader's connection (opening at start, or reconnecting) instead of
    // failing at once: a read counts nothing, and what it delivers stays pending until acked.
    const enableOfflineQueue = true;
    this.reader =
      'nodes' in this.client
        ? this.client.duplicate(undefined, {
            enableOfflineQueue,
            redisOptions: { ...this.client.options.redisOptions, commandTimeout },
          })
        : this.client.duplicate({ commandTimeout, enableOfflineQueue });
    this.reader.on('error', () => {
      // The shared connection reports Redis trouble; the reader's read fails and is retried.
    });
    return this.reader;
  }
}

/**
 * XREADGROUP's reply for the one stream read: over RESP2 (ioredis 5) a list of [key, entries]
 * pairs, over RESP3 (ioredis 6's default) a map, which ioredis hands over flat as
 * [key, entries, …]; null when nothing came before the block ended.
 */
type StreamsReply = Array<[string, RawEntry[]]> | [string, RawEntry[]] | null;

function entriesOf(reply: StreamsReply): RawEntry[] | undefined {
  if (reply === null || reply.length === 0) return undefined;
  const [first, second] = reply;
  if (typeof first === 'string') return second as RawEntry[];
  return first?.[1];
}

/** A claimed entry deleted meanwhile comes back as null; an entry without an event, as event null. */
function entries(raw: ReadonlyArray<RawEntry | null> | undefined): PenaltyStreamEntry[] {
  const found: PenaltyStreamEntry[] = [];
  for (const entry of raw ?? []) {
    if (entry === null) continue;
    const [entryId, fields] = entry;
    const at = fields.indexOf('e');
    const text = at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
    found.push({ entryId, event: text === undefined ? null : parsePenaltyEvent(text) });
  }
  return found;
}
