import type { DataSource, EntityManager } from 'typeorm';
import type { GrantRecord } from '@sluice/nest/internals';
import { InvalidRequestException } from '../common/invalid-request.exception.js';

// A grant's key is kept a day beside its audit entry, so a request retried after an answer
// that never came finds the grant made and is not made twice (docs/guide.md, "Credits").

/** What a key recorded: the grant it was given for. */
interface KeptGrant {
  policy: string;
  identifier: string;
  amount: number;
}

const KEPT_FOR = "interval '1 day'";

/**
 * Holds `key` for the transaction (a grant retried in parallel waits for the first) and answers
 * whether a grant was already made with it; a key reused for another grant is a 400.
 */
export async function grantMadeWith(
  manager: EntityManager,
  key: string,
  grant: GrantRecord,
): Promise<boolean> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`sluice_grant_key:${key}`]);
  const rows: KeptGrant[] = await manager.query(
    `SELECT policy, identifier, amount FROM sluice_grant_key WHERE key = $1 AND made_at > now() - ${KEPT_FOR}`,
    [key],
  );
  const kept = rows[0];
  if (kept === undefined) return false;
  if (
    kept.policy !== grant.policy ||
    kept.identifier !== grant.identifier ||
    kept.amount !== grant.amount
  ) {
    throw new InvalidRequestException([
      {
        field: 'key',
        message: `was used for a grant of ${kept.amount} to ${kept.policy}/${kept.identifier}; a new grant needs a new key`,
      },
    ]);
  }
  return true;
}

/** Keeps `key` with the audit entry of its grant, and forgets keys older than a day. */
export async function keepGrantKey(
  manager: EntityManager,
  key: string,
  grant: GrantRecord,
  auditId: string,
): Promise<void> {
  await manager.query(`DELETE FROM sluice_grant_key WHERE made_at < now() - ${KEPT_FOR}`);
  await manager.query(
    `INSERT INTO sluice_grant_key (key, policy, identifier, amount, audit_id)
     VALUES ($1, $2, $3, $4, $5)`,
    [key, grant.policy, grant.identifier, grant.amount, auditId],
  );
}

/**
 * After a commit that failed in flight, whether it happened all the same: the key is there when
 * it did. `undefined` when the database cannot say.
 */
export async function committedWith(
  dataSource: DataSource,
  key: string,
): Promise<boolean | undefined> {
  try {
    const rows: unknown[] = await dataSource.query(
      'SELECT 1 FROM sluice_grant_key WHERE key = $1',
      [key],
    );
    return rows.length > 0;
  } catch {
    return undefined;
  }
}
