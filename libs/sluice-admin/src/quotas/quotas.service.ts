import {
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  SluiceEngine,
  SluiceService,
  toIdentifier,
  traitsOf,
  type GrantAudit,
  type GrantRecord,
  type Identifier,
  type Quota,
} from '@sluice/nest/internals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type {
  QuotaGrantAnswer,
  QuotaGrantRequest,
  QuotaQuery,
  QuotaState,
} from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { readSetting } from '../database/snapshot.reader.js';
import { recordAudit } from '../database/audit.recorder.js';
import { inTransaction } from '../database/transaction.js';
import { identifier as identifierSchema } from '../penalties/penalty-requests.schema.js';
import { readPlanOf } from '../common/identifier.plan.js';
import { committedWith, grantMadeWith, keepGrantKey } from './grant.keys.js';

/**
 * An identifier's quota under a fixed-window policy: read, credited, debited (docs/guide.md,
 * "Credits"); every grant, the app's own through SluiceService included, in the audit.
 */
@Injectable()
export class QuotasService implements GrantAudit, OnModuleInit {
  private readonly logger = new Logger('SluiceAdmin');
  /** The answers of grants retried with a key already used, which granted nothing more. */
  private readonly replays = new WeakSet<Quota>();

  constructor(
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  async read(policy: string, identifier: string, query: QuotaQuery): Promise<QuotaState> {
    this.assertQuota(policy);
    checkedIdentifier(identifier);
    // The tier asked for wins; else the identifier's, looked up as the Identifiers screen does.
    const plan =
      query.tier === undefined
        ? await readPlanOf(this.engine, this.sluice, policy, identifier)
        : { options: {} };
    try {
      return inApiTimes(await this.engine.quota(policy, identifier, { ...plan.options, ...query }));
    } catch (error) {
      throw new RedisUnavailableException('the quota cannot be read', error);
    }
  }

  onModuleInit(): void {
    this.sluice.recordGrantsWith(this);
  }

  /** Credits (or debits) the current period, as `actor`, audited by `record` below. */
  async grant(
    policy: string,
    identifier: string,
    request: QuotaGrantRequest,
    actor: Actor,
  ): Promise<QuotaGrantAnswer> {
    this.assertQuota(policy);
    checkedIdentifier(identifier);
    const options = {
      actor: actor.name,
      note: request.note ?? null,
      context: actor,
      ...(request.tier === undefined ? {} : { tier: request.tier }),
      ...(request.key === undefined ? {} : { key: request.key }),
    };
    const quota = await this.sluice.grant(policy, identifier, request.amount, options);
    return { ...inApiTimes(quota), replayed: this.replays.has(quota) };
  }

  /**
   * Records a grant around `apply`, all or nothing: the policy database is reached first and the
   * grant's key held (a grant already made with it is answered, not made again), the credits go
   * to Redis, and the audit entry (with the total Redis answered for this grant) is written and
   * committed with the key after; an entry that did not commit has the credits taken back
   * (`revert`), and the answer is a 503 saying nothing was granted.
   */
  async record(grant: GrantRecord, apply: () => Promise<Quota>): Promise<Quota> {
    const display = toIdentifier(grant.identifier).display;
    const actor = isActor(grant.context)
      ? grant.context
      : { name: grant.actor, role: 'admin' as const, ip: null, userAgent: null };
    const key = grant.key ?? randomUUID();
    let before: Quota;
    try {
      before = await grant.current();
    } catch (error) {
      if (error instanceof RangeError) throw error;
      throw new RedisUnavailableException('nothing was granted', error);
    }
    let applied: Quota | undefined;
    try {
      return await inTransaction(this.dataSource, async (manager) => {
        const { version } = await readSetting(manager);
        if (await grantMadeWith(manager, key, grant)) return this.replay(grant);
        try {
          applied = await apply();
        } catch (error) {
          if (error instanceof RangeError) throw error;
          // No answer is not no grant: it may land later. Taking it back settles it either way.
          const undone = await this.takeBack(grant, error);
          throw new RedisUnavailableException(
            undone
              ? 'nothing was granted'
              : 'whether the grant was made could not be confirmed; this is logged',
            error,
          );
        }
        const auditId = await recordAudit(manager, {
          actor,
          action: grant.amount > 0 ? 'quota.grant' : 'quota.debit',
          target: `${grant.policy}/${display}`,
          before: { granted: before.granted, used: before.used, remaining: before.remaining },
          after: {
            policy: grant.policy,
            identifier: display,
            amount: grant.amount,
            // What Redis held right after this grant: parallel grants read the same `before`.
            granted: applied.granted,
            remaining: applied.remaining,
            resetAt: new Date(before.resetAt).toISOString(),
            tier: applied.tier,
          },
          comment: grant.note,
          version,
        });
        await keepGrantKey(manager, key, grant, auditId);
        return applied;
      });
    } catch (error) {
      if (applied === undefined) throw error;
      // A commit whose answer was lost may have happened: its key says so.
      if ((await committedWith(this.dataSource, key)) === true) return applied;
      const undone = await this.takeBack(grant, error);
      throw new ServiceUnavailableException({
        statusCode: 503,
        error: 'Service Unavailable',
        message: undone
          ? `The grant could not be audited, so it was taken back and nothing was granted: ${(error as Error).message}`
          : `The grant could not be audited, and taking it back could not be confirmed; this is logged: ${(error as Error).message}`,
      });
    }
  }

  /** The quota now, for a grant retried with the key of one already made. */
  private async replay(grant: GrantRecord): Promise<Quota> {
    let quota: Quota;
    try {
      quota = await grant.current();
    } catch (error) {
      throw new RedisUnavailableException(
        'the grant was made before, and the quota cannot be read now',
        error,
      );
    }
    this.replays.add(quota);
    return quota;
  }

  /**
   * Takes back credits that may be in Redis without their audit entry, trying a few times over
   * about 3 s (Redis pauses are short); logs it and answers false when it cannot.
   */
  private async takeBack(grant: GrantRecord, cause: unknown): Promise<boolean> {
    let failure: unknown;
    for (const waitMs of TAKE_BACK_WAITS_MS) {
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      try {
        await grant.revert?.();
        return true;
      } catch (error) {
        failure = error;
      }
    }
    this.logger.error(
      `A grant of ${grant.amount} to ${grant.policy}/${grant.identifier} by ${grant.actor} may be in Redis without its audit entry (${(cause as Error).message}), and taking it back failed: ${(failure as Error).message}`,
    );
    return false;
  }

  /** 404 for a policy not in force here, 400 for one that keeps no quota. */
  private assertQuota(policy: string): void {
    const found = this.engine.policies.get(policy);
    if (found === undefined) {
      throw new NotFoundException({
        statusCode: 404,
        error: 'Not Found',
        message: `No policy named "${policy}" is in force on this instance`,
      });
    }
    if (!traitsOf(found.algorithm).quota) {
      throw new InvalidRequestException([
        {
          field: 'policy',
          message: `${policy} is a ${found.algorithm} policy; quotas and credits are fixed-window`,
        },
      ]);
    }
  }
}

/** The waits before each try at taking a grant back. */
const TAKE_BACK_WAITS_MS = [0, 250, 1000, 2000];

/** The same rule as every other route's identifier (penalty-requests.schema.ts), then the engine's. */
function checkedIdentifier(identifier: string): Identifier {
  const checked = identifierSchema.safeParse(identifier);
  if (!checked.success) {
    throw new InvalidRequestException([
      { field: 'identifier', message: checked.error.issues[0]?.message ?? 'is not an identifier' },
    ]);
  }
  return toIdentifier(checked.data);
}

/** The admin's own request actor, handed through SluiceService.grant's `context`. */
function isActor(value: unknown): value is Actor {
  const actor = value as Partial<Actor> | undefined;
  return typeof actor?.name === 'string' && typeof actor.role === 'string' && 'ip' in actor;
}

/** A quota as the API writes it: its time in ISO 8601, as every time the API answers. */
const inApiTimes = (quota: Quota): QuotaState => ({
  ...quota,
  resetAt: new Date(quota.resetAt).toISOString(),
});
