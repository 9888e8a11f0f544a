import type { PenaltyEvent } from '@sluice/nest';
import type { EntityManager } from 'typeorm';

/** Why a block ended before its time when a newer block of the same key replaced it. */
export const SUPERSEDED = 'superseded by a newer block';
const LIFTED_BY_HAND = 'lifted by hand';

/**
 * Writes events in stream order inside the caller's transaction and returns those that changed
 * something: a block recorded for the first time, or a lifting that ended an open block. An event
 * seen before (same id, or a lifting of a block already ended) changes nothing.
 */
export async function recordEvents(
  manager: EntityManager,
  events: readonly PenaltyEvent[],
): Promise<PenaltyEvent[]> {
  const fresh: PenaltyEvent[] = [];
  for (const event of events) {
    const changed =
      event.type === 'block.lifted'
        ? await liftOpen(manager, event)
        : await insertBlock(manager, event);
    if (changed) fresh.push(event);
  }
  return fresh;
}

async function insertBlock(manager: EntityManager, event: PenaltyEvent): Promise<boolean> {
  const startedAt = new Date(event.startedAt ?? event.occurredAt);
  const inserted = await manager.query<Array<{ id: string }>>(
    `INSERT INTO sluice_penalty (event_id, policy, policy_version, key_kind, identifier,
       offence_level, "trigger", started_at, expires_at, source, created_by, reason, instance_id, route)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (event_id) DO NOTHING
     RETURNING id`,
    [
      event.id,
      event.policy,
      event.policyVersion,
      event.keyKind,
      event.identifier,
      event.offence,
      event.trigger === null ? null : JSON.stringify(event.trigger),
      startedAt,
      new Date(event.expiresAt),
      event.type === 'block.manual' ? 'manual' : 'auto',
      event.actor,
      event.reason,
      event.instanceId,
      event.route,
    ],
  );
  const id = inserted[0]?.id;
  if (id === undefined) return false;
  // A block replaces whatever block the key had: the older one ends when this one starts.
  await manager.query(
    `UPDATE sluice_penalty SET lifted_at = $5, lift_reason = $6
     WHERE policy = $1 AND key_kind = $2 AND identifier = $3 AND id <> $4
       AND lifted_at IS NULL AND started_at <= $5 AND expires_at > $5`,
    [event.policy, event.keyKind, event.identifier, id, startedAt, SUPERSEDED],
  );
  return true;
}

/** The lifted block is the key's open one that would have ended when the event says. */
async function liftOpen(manager: EntityManager, event: PenaltyEvent): Promise<boolean> {
  const [, lifted] = await manager.query<[unknown, number]>(
    `UPDATE sluice_penalty SET lifted_at = $5, lifted_by = $6, lift_reason = $7
     WHERE policy = $1 AND key_kind = $2 AND identifier = $3 AND expires_at = $4
       AND lifted_at IS NULL`,
    [
      event.policy,
      event.keyKind,
      event.identifier,
      new Date(event.expiresAt),
      new Date(event.occurredAt),
      event.actor,
      event.reason ?? LIFTED_BY_HAND,
    ],
  );
  return lifted > 0;
}
