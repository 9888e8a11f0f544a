import type { PenaltyEvent } from '@sluice/nest/internals';
import type { EntityManager } from 'typeorm';

/** Why a block ended before its time when a newer block of the same key replaced it. */
export const SUPERSEDED = 'superseded by a newer block';
const LIFTED_BY_HAND = 'lifted by hand';

/**
 * Writes events in stream order inside the caller's transaction and returns those that changed
 * something: a block recorded for the first time, or a lifting that ended an open block. An event
 * seen before (same id, or a lifting of a block already ended) changes nothing. Consecutive blocks
 * go in one statement, and the older blocks they replace are ended in one more.
 */
export async function recordEvents(
  manager: EntityManager,
  events: readonly PenaltyEvent[],
): Promise<PenaltyEvent[]> {
  const fresh: PenaltyEvent[] = [];
  let blocks: PenaltyEvent[] = [];
  const insertPending = async (): Promise<void> => {
    if (blocks.length > 0) fresh.push(...(await insertBlocks(manager, blocks)));
    blocks = [];
  };
  for (const event of events) {
    if (event.type !== 'block.lifted') {
      blocks.push(event);
      continue;
    }
    await insertPending();
    if (await liftOpen(manager, event)) fresh.push(event);
  }
  await insertPending();
  return fresh;
}

async function insertBlocks(
  manager: EntityManager,
  events: readonly PenaltyEvent[],
): Promise<PenaltyEvent[]> {
  const column = <T>(value: (event: PenaltyEvent) => T): T[] => events.map(value);
  const inserted = await manager.query<Array<{ id: string; event_id: string }>>(
    `INSERT INTO sluice_penalty (event_id, policy, policy_version, key_kind, identifier,
       offence_level, "trigger", started_at, expires_at, source, created_by, reason, instance_id, route,
       identifier_key)
     SELECT * FROM unnest($1::text[], $2::varchar[], $3::bigint[], $4::varchar[], $5::varchar[],
       $6::integer[], $7::json[], $8::timestamptz[], $9::timestamptz[], $10::varchar[], $11::text[],
       $12::varchar[], $13::text[], $14::text[], $15::varchar[])
     ON CONFLICT (event_id) DO NOTHING
     RETURNING id, event_id`,
    [
      column((event) => event.id),
      column((event) => event.policy),
      column((event) => event.policyVersion),
      column((event) => event.keyKind),
      column((event) => event.identifier),
      column((event) => event.offence),
      column((event) => (event.trigger === null ? null : JSON.stringify(event.trigger))),
      column((event) => new Date(event.startedAt ?? event.occurredAt)),
      column((event) => new Date(event.expiresAt)),
      column((event) => (event.type === 'block.manual' ? 'manual' : 'auto')),
      column((event) => event.actor),
      column((event) => event.reason),
      column((event) => event.instanceId),
      column((event) => event.route),
      column((event) => event.key ?? null),
    ],
  );
  if (inserted.length === 0) return [];
  const byId = new Map(events.map((event) => [event.id, event]));
  const rows = inserted.map((row) => ({ id: row.id, event: byId.get(row.event_id)! }));
  const of = <T>(value: (event: PenaltyEvent) => T): T[] => rows.map((row) => value(row.event));
  // A block replaces whatever block its key had: the older one ends when the newer one starts.
  // The new rows come as parameters, not from the table, so the plan holds however stale the
  // table's statistics are after a burst of inserts.
  await manager.query(
    `UPDATE sluice_penalty older SET lifted_at = newer.started_at, lift_reason = $6
     FROM unnest($1::bigint[], $2::varchar[], $3::varchar[], $4::varchar[], $5::timestamptz[],
       $7::varchar[]) AS newer (id, policy, key_kind, identifier, started_at, identifier_key)
     WHERE older.policy = newer.policy AND older.key_kind = newer.key_kind
       AND older.identifier = newer.identifier
       AND older.identifier_key IS NOT DISTINCT FROM newer.identifier_key
       AND older.lifted_at IS NULL
       AND (older.started_at, older.id) < (newer.started_at, newer.id)
       AND older.expires_at > newer.started_at`,
    [
      rows.map((row) => row.id),
      of((event) => event.policy),
      of((event) => event.keyKind),
      of((event) => event.identifier),
      of((event) => new Date(event.startedAt ?? event.occurredAt)),
      SUPERSEDED,
      of((event) => event.key ?? null),
    ],
  );
  return rows.map((row) => row.event);
}

/** The lifted block is the key's open one that would have ended when the event says. */
async function liftOpen(manager: EntityManager, event: PenaltyEvent): Promise<boolean> {
  const [, lifted] = await manager.query<[unknown, number]>(
    `UPDATE sluice_penalty SET lifted_at = $5, lifted_by = $6, lift_reason = $7
     WHERE policy = $1 AND key_kind = $2 AND identifier = $3 AND expires_at = $4
       AND identifier_key IS NOT DISTINCT FROM $8::varchar AND lifted_at IS NULL`,
    [
      event.policy,
      event.keyKind,
      event.identifier,
      new Date(event.expiresAt),
      new Date(event.occurredAt),
      event.actor,
      event.reason ?? LIFTED_BY_HAND,
      event.key ?? null,
    ],
  );
  return lifted > 0;
}
