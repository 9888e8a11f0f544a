import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  epochMs,
  HOUR_MS,
  PolicyRegistry,
  SLUICE_CLOCK,
  summarizeProfile,
  TRAFFIC_PROFILE,
  windowMsOf,
  type Clock,
  type TrafficProfileStore,
} from '@sluice/nest/internals';
import type { ProfileQuery, TrafficProfileView } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';

/** The clock hours each range reads beside the current one. */
const HOURS_BEFORE = { hour: 1, day: 24, week: 168 } as const;

/** A policy's traffic profile, read from the store the instances add it up in. */
@Injectable()
export class ProfilesService {
  constructor(
    @Inject(TRAFFIC_PROFILE) private readonly store: TrafficProfileStore | null,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async profile(name: string, query: ProfileQuery): Promise<TrafficProfileView> {
    const policy = this.policies.get(name);
    if (policy === undefined) throw notFound(`no policy named "${name}" is in force`);
    if (this.store === null) {
      throw notFound("traffic profiles are off: SluiceModule's trafficProfile is false");
    }
    const range = query.range ?? 'hour';
    const tier = query.tier === undefined ? null : query.tier === '-' ? '' : query.tier;
    let limit = policy.limit;
    if (tier !== null && tier !== '') {
      const rate = policy.tiers?.[tier];
      if (rate === undefined) {
        throw new InvalidRequestException([
          { field: 'tier', message: `policy "${name}" has no tier named "${tier}"` },
        ]);
      }
      limit = rate.limit;
    }
    const nowMs = epochMs(this.clock);
    const windowMs = windowMsOf(policy.periodMs);
    const toHour = Math.floor(nowMs / HOUR_MS);
    const fromHour = toHour - HOURS_BEFORE[range];
    let record;
    try {
      record = await this.store.read(name, windowMs, fromHour, toHour, nowMs);
    } catch (error) {
      throw new RedisUnavailableException('the traffic profile cannot be read', error);
    }
    const summary = summarizeProfile(record, windowMs, fromHour, toHour, tier);
    return {
      policy: name,
      range,
      tier,
      windowMs,
      from: new Date(summary.fromMs).toISOString(),
      to: new Date(summary.toMs).toISOString(),
      windows: summary.windows,
      identifierWindows: summary.identifierWindows,
      requests: summary.requests,
      percentiles: summary.percentiles,
      max: summary.max,
      histogram: summary.histogram,
      busiest: summary.busiest.map((each) => ({
        keyKind: each.keyKind,
        identifier: each.identifier,
        key: each.key ?? null,
        tier: each.tier,
        most: each.most,
        limit: (each.tier === null ? undefined : policy.tiers?.[each.tier]?.limit) ?? policy.limit,
      })),
      share: summary.share,
      bucketError: summary.bucketError,
      late: summary.late,
      limit,
      periodMs: policy.periodMs,
    };
  }
}

function notFound(message: string): NotFoundException {
  return new NotFoundException({ statusCode: 404, error: 'Not Found', message });
}
