import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  SLUICE_CLOCK,
  SluiceEngine,
  SluiceService,
  type Clock,
  type Policy,
} from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import type {
  BlockedEntry,
  BlockedList,
  BlockResult,
  UnblockResult,
} from '../common/admin-api.types.js';
import { recordAudit, type AuditRecord } from '../database/audit.recorder.js';
import type { Actor } from '../common/actor.js';
import { InvalidRequestException, parseRequest } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { readSetting } from '../database/snapshot.reader.js';
import { inTransaction } from '../database/transaction.js';
import { unblockSchema, type BlockBody, type BlockedQuery } from './penalty-requests.schema.js';

const DEFAULT_LIST_SIZE = 1_000;

interface BlockedRow {
  policy: string;
  key_kind: string;
  identifier: string;
  identifier_key: string | null;
  offence_level: number;
  source: 'auto' | 'manual';
  started_at: Date;
  expires_at: Date;
  created_by: string | null;
  reason: string | null;
  route: string | null;
  total: string;
}

/**
 * Who is blocked now, and blocking or lifting by hand. The list reads the penalty history, which
 * the stream consumer keeps within about a second of the instances; blocking and lifting act on
 * Redis through SluiceService, audited in a transaction that commits only once Redis has acted.
 */
@Injectable()
export class BlockedService {
  constructor(
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async list(query: BlockedQuery): Promise<BlockedList> {
    const { policy, q, limit = DEFAULT_LIST_SIZE } = query;
    const rows = await this.dataSource.query<BlockedRow[]>(
      `SELECT *, count(*) OVER () AS total FROM (
         SELECT DISTINCT ON (policy, key_kind, identifier, identifier_key)
           policy, key_kind, identifier, identifier_key, offence_level, source, started_at,
           expires_at, created_by, reason, route
         FROM sluice_penalty
         WHERE lifted_at IS NULL AND expires_at > now()
           AND ($1::varchar IS NULL OR policy = $1)
           AND ($2::text IS NULL OR strpos(identifier, $2) > 0)
         ORDER BY policy, key_kind, identifier, identifier_key, started_at DESC
       ) open ORDER BY started_at DESC LIMIT $3`,
      [policy ?? null, q ?? null, limit],
    );
    const now = epochMs(this.clock);
    return { blocked: rows.map((row) => toEntry(row, now)), total: Number(rows[0]?.total ?? 0) };
  }

  async block(request: BlockBody, actor: Actor): Promise<BlockResult> {
    const policy = this.policy(request.policy);
    const keyKind = request.keyKind ?? policy.key;
    const reason = request.reason ?? null;
    const { identifier, durationMs } = request;
    const change = {
      action: 'block.create',
      target: `${policy.name}/${identifier}`,
      before: null,
      after: { keyKind, identifier, durationMs, reason },
      comment: reason,
    };
    return this.audited(actor, change, 'the block was not set', async () => {
      const options = { keyKind, actor: actor.name, reason: reason ?? undefined };
      const { untilMs } = await this.sluice.block(policy.name, identifier, durationMs, options);
      const expiresAt = new Date(untilMs).toISOString();
      return { policy: policy.name, keyKind, identifier, expiresAt };
    });
  }

  async unblock(params: unknown, actor: Actor): Promise<UnblockResult> {
    const request = parseRequest(unblockSchema, params, '(query)');
    const policy = this.policy(request.policy);
    const keyKind = request.keyKind ?? policy.key;
    const reason = request.reason ?? null;
    const { identifier, key } = request;
    const forgetOffences = request.forgetOffences === true;
    const change = {
      action: 'block.lift',
      target: `${policy.name}/${identifier}`,
      before: { keyKind, identifier, ...(key === undefined ? {} : { key }) },
      after: forgetOffences ? { offencesForgotten: true } : null,
      comment: reason,
    };
    const notBlocked = (lifted: boolean): void => {
      if (lifted) return;
      throw new NotFoundException({
        statusCode: 404,
        error: 'Not Found',
        message: `${keyKind} "${identifier}" is not blocked under policy "${policy.name}"`,
      });
    };
    const act = async () => {
      const options = { keyKind, key, actor: actor.name, reason: reason ?? undefined };
      const lifted = await this.sluice.unblock(policy.name, identifier, options);
      // Only once a block was lifted: a 404 leaves everything as it was.
      if (lifted && forgetOffences) {
        await this.engine.forgetOffences(policy.name, identifier, { keyKind, key });
      }
      return lifted;
    };
    await this.audited(actor, change, 'the block was not lifted', act, notBlocked);
    return { lifted: true };
  }

  /**
   * Writes the audit entry, then acts on Redis, then `verify`s what Redis answered; commits only
   * once all three have passed, so the audit never records what did not happen.
   */
  private audited<T>(
    actor: Actor,
    change: Omit<AuditRecord, 'actor' | 'version'>,
    failure: string,
    act: () => Promise<T>,
    verify: (result: T) => void = () => undefined,
  ): Promise<T> {
    return inTransaction(this.dataSource, async (manager) => {
      const { version } = await readSetting(manager);
      await recordAudit(manager, { ...change, actor, version });
      let result: T;
      try {
        result = await act();
      } catch (error) {
        throw new RedisUnavailableException(failure, error);
      }
      verify(result);
      return result;
    });
  }

  private policy(name: string): Policy {
    const policy = this.engine.policies.get(name);
    if (policy !== undefined) return policy;
    throw new InvalidRequestException([
      { field: 'policy', message: `no policy named "${name}" is in force` },
    ]);
  }
}

function toEntry(row: BlockedRow, now: number): BlockedEntry {
  return {
    policy: row.policy,
    keyKind: row.key_kind,
    identifier: row.identifier,
    key: row.identifier_key,
    offence: row.offence_level,
    source: row.source,
    startedAt: row.started_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    timeLeftMs: Math.max(0, row.expires_at.getTime() - now),
    createdBy: row.created_by,
    reason: row.reason,
    route: row.route,
  };
}
