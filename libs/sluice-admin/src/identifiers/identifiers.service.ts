import { Inject, Injectable } from '@nestjs/common';
import {
  epochMs,
  IDENTIFIER_STATS,
  PolicyRegistry,
  SLUICE_CLOCK,
  SluiceService,
  type Clock,
  type IdentifierCount,
  type IdentifierStatsStore,
} from '@sluice/nest/internals';
import type { IdentifierList, IdentifierView } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import type { IdentifiersQuery } from '../penalties/penalty-requests.schema.js';

const DEFAULT_LIMIT = 50;

/** The identifiers the instances saw most, with what each would be told now. */
@Injectable()
export class IdentifiersService {
  constructor(
    @Inject(IDENTIFIER_STATS) private readonly stats: IdentifierStatsStore,
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async list(query: IdentifiersQuery): Promise<IdentifierList> {
    const { policy, q, limit = DEFAULT_LIMIT } = query;
    const names = policy === undefined ? this.policiesInForce() : [this.known(policy)];
    try {
      // Each policy's own busiest `limit` hold the busiest `limit` of all of them.
      const read = (name: string) =>
        this.stats.read(name, { limit, ...(q === undefined ? {} : { q }) });
      const counts = (await Promise.all(names.map(read)))
        .flat()
        .sort((a, b) => b.rejected - a.rejected || b.passed - a.passed || b.lastSeen - a.lastSeen)
        .slice(0, limit);
      return { identifiers: await Promise.all(counts.map((count) => this.view(count))) };
    } catch (error) {
      throw new RedisUnavailableException('the identifiers cannot be read', error);
    }
  }

  private async view(count: IdentifierCount): Promise<IdentifierView> {
    const { key } = count;
    const now = await this.sluice.peek(count.policy, count.identifier, {
      keyKind: count.keyKind,
      ...(key === undefined ? {} : { key }),
    });
    return {
      ...count,
      key: key ?? null,
      lastSeen: new Date(count.lastSeen).toISOString(),
      state: {
        blocked: now.blocked !== undefined && now.blocked.untilMs > epochMs(this.clock),
        blockedUntil:
          now.blocked === undefined ? null : new Date(now.blocked.untilMs).toISOString(),
        remaining: now.remaining,
        limit: now.limit,
        retryAfterMs: now.retryAfterMs,
      },
    };
  }

  private policiesInForce(): string[] {
    return this.policies.all().map((policy) => policy.name);
  }

  private known(name: string): string {
    if (this.policies.get(name) !== undefined) return name;
    throw new InvalidRequestException([
      { field: 'policy', message: `no policy named "${name}" is in force` },
    ]);
  }
}
