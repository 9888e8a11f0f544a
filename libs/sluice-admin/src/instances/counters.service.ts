import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SluiceEngine, SluiceService, toIdentifier, type Identifier } from '@sluice/nest/internals';
import { DataSource } from 'typeorm';
import type { CounterResetResult, InspectResult } from '../common/admin-api.types.js';
import { readPlanOf } from '../common/identifier.plan.js';
import type { Actor } from '../common/actor.js';
import { InvalidRequestException, parseRequest } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { readSetting } from '../database/snapshot.reader.js';
import { recordAudit } from '../database/audit.recorder.js';
import { inTransaction } from '../database/transaction.js';
import {
  identifier as identifierSchema,
  resetQuerySchema,
} from '../penalties/penalty-requests.schema.js';
import { inspectAnswer } from './api-decision.js';

/** An identifier's counters under one policy, as this instance's engine sees them. */
@Injectable()
export class CountersService {
  constructor(
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  /** What a request would be told now, without charging it. */
  async inspect(policy: string, identifier: string): Promise<InspectResult> {
    this.assertKnown(policy);
    checkedIdentifier(identifier);
    // As the identifier's own tier decides it, where the app says which that is.
    const plan = await readPlanOf(this.engine, this.sluice, policy, identifier);
    try {
      const decision = await this.engine.peek(policy, identifier, plan.options);
      return inspectAnswer(decision, plan.lookup);
    } catch (error) {
      throw new RedisUnavailableException('the counters cannot be read', error);
    }
  }

  /**
   * Forgets the counters; blocks and offences stay unless `forgetOffences`, which also lifts any
   * block and forgets the offence level, so the identifier starts afresh. The audit entry is
   * written first and committed only once Redis has done the reset, so the audit never records a
   * reset that failed.
   */
  async reset(
    policy: string,
    identifier: string,
    actor: Actor,
    query: unknown = {},
  ): Promise<CounterResetResult> {
    this.assertKnown(policy);
    const { display } = checkedIdentifier(identifier);
    const { forgetOffences = false, key } = parseRequest(resetQuerySchema, query ?? {}, '(query)');
    const named = key === undefined ? {} : { key };
    await inTransaction(this.dataSource, async (manager) => {
      const { version } = await readSetting(manager);
      await recordAudit(manager, {
        actor,
        action: 'counters.reset',
        target: `${policy}/${display}`,
        before: null,
        after: {
          policy,
          identifier: display,
          ...named,
          ...(forgetOffences ? { offencesForgotten: true } : {}),
        },
        comment: null,
        version,
      });
      try {
        await this.engine.reset(policy, identifier, named);
        if (forgetOffences) {
          await this.sluice.forgetOffences(policy, identifier, { ...named, actor: actor.name });
        }
      } catch (error) {
        throw new RedisUnavailableException('the counters were not reset', error);
      }
    });
    return { reset: true };
  }

  private assertKnown(policy: string): void {
    if (this.engine.policies.get(policy) !== undefined) return;
    throw new NotFoundException({
      statusCode: 404,
      error: 'Not Found',
      message: `No policy named "${policy}" is in force on this instance`,
    });
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
