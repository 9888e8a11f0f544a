import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SluiceEngine, SluiceService, toIdentifier, type Identifier } from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import type { QuotaGrantRequest, QuotaQuery, QuotaState } from '../common/admin-api.types.js';
import type { Actor } from '../common/actor.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { readSetting } from '../database/snapshot.reader.js';
import { recordAudit } from '../database/audit.recorder.js';
import { inTransaction } from '../database/transaction.js';
import { identifier as identifierSchema } from '../penalties/penalty-requests.schema.js';

/** An identifier's quota under a fixed-window policy: read, credited, debited (docs/guide.md, "Credits"). */
@Injectable()
export class QuotasService {
  constructor(
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  async read(policy: string, identifier: string, query: QuotaQuery): Promise<QuotaState> {
    this.assertQuota(policy);
    checkedIdentifier(identifier);
    try {
      return await this.sluice.quota(policy, identifier, query);
    } catch (error) {
      throw new RedisUnavailableException('the quota cannot be read', error);
    }
  }

  /**
   * Credits (or debits) the current period. The audit entry is written first and committed only
   * once Redis has the credits, so the audit never records a grant that failed.
   */
  async grant(
    policy: string,
    identifier: string,
    request: QuotaGrantRequest,
    actor: Actor,
  ): Promise<QuotaState> {
    this.assertQuota(policy);
    const { display } = checkedIdentifier(identifier);
    const tier = request.tier === undefined ? {} : { tier: request.tier };
    return inTransaction(this.dataSource, async (manager) => {
      const { version } = await readSetting(manager);
      let quota: QuotaState;
      try {
        quota = await this.sluice.grant(policy, identifier, request.amount, tier);
      } catch (error) {
        throw new RedisUnavailableException('nothing was granted', error);
      }
      await recordAudit(manager, {
        actor,
        action: request.amount > 0 ? 'quota.grant' : 'quota.debit',
        target: `${policy}/${display}`,
        before: { granted: quota.granted - request.amount },
        after: {
          policy,
          identifier: display,
          amount: request.amount,
          granted: quota.granted,
          used: quota.used,
          remaining: quota.remaining,
          resetAt: quota.resetAt,
          tier: quota.tier,
        },
        comment: request.note ?? null,
        version,
      });
      return quota;
    });
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
    if (found.algorithm !== 'fixed-window') {
      throw new InvalidRequestException([
        {
          field: 'policy',
          message: `${policy} is a ${found.algorithm} policy; quotas and credits are fixed-window`,
        },
      ]);
    }
  }
}

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
