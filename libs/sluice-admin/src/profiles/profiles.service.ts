import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  epochMs,
  firstHourRead,
  HOUR_MS,
  PolicyRegistry,
  profileOfRecords,
  profileWindowsOf,
  recommendLimit,
  REPLAY_STORE,
  SLUICE_CLOCK,
  summarizeProfile,
  TRAFFIC_PROFILE,
  type Clock,
  type Policy,
  type ProfileIdentifier,
  type ProfileSummary,
  type ReplayRecord,
  type ReplayStore,
  type TrafficProfileStore,
} from '@sluice/nest/internals';
import type {
  ProfileIdentifierView,
  ProfileQuery,
  RecommendationQuery,
  RecommendationView,
  TrafficProfileView,
} from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';
import { readRecords, replayRange } from './replay.range.js';

/** The clock hours each range reads beside the current one. */
const HOURS_BEFORE = { hour: 1, day: 24, week: 168 } as const;
const DEFAULT_PERCENTILE = 99;
const DEFAULT_HEADROOM = 20;

/** A profile read for one policy and tier, with the limit in force for that tier. */
interface ProfileRead {
  policy: Policy;
  range: 'hour' | 'day' | 'week';
  tier: string | null;
  limit: number;
  summary: ProfileSummary;
}

/** A policy's traffic profile, read from the store the instances add it up in. */
@Injectable()
export class ProfilesService {
  constructor(
    @Inject(TRAFFIC_PROFILE) private readonly store: TrafficProfileStore | null,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
    @Inject(REPLAY_STORE) private readonly replays: ReplayStore | null,
  ) {}

  async profile(name: string, query: ProfileQuery): Promise<TrafficProfileView> {
    const { policy, range, tier, limit, summary } = await this.read(name, query);
    return {
      policy: name,
      range,
      tier,
      windowMs: summary.windowMs,
      calendar: summary.calendar,
      from: new Date(summary.fromMs).toISOString(),
      to: new Date(summary.toMs).toISOString(),
      windows: summary.windows,
      identifierWindows: summary.identifierWindows,
      requests: summary.requests,
      percentiles: summary.percentiles,
      max: summary.max,
      histogram: summary.histogram,
      busiest: summary.busiest.map((each) => identifierView(policy, each)),
      share: summary.share,
      bucketError: summary.bucketError,
      late: summary.late,
      limit,
      periodMs: policy.periodMs,
    };
  }

  /**
   * A limit for the percentile and headroom asked, read from the profile, whose windows are the
   * policy's periods (a calendar's included); for a period under a second, which the profile
   * counts per second, read from the replay record's requests counted per period instead.
   */
  async recommend(name: string, query: RecommendationQuery): Promise<RecommendationView> {
    const read = await this.read(name, query);
    const { policy, range, tier, limit } = read;
    let summary = read.summary;
    const source =
      summary.calendar === null && summary.windowMs !== policy.periodMs ? 'record' : 'profile';
    if (source === 'record') {
      const records = await this.recorded(policy, tier, summary.fromMs * 1000);
      if (records.length === 0) {
        throw new ConflictException({
          statusCode: 409,
          error: 'Conflict',
          message:
            `policy "${name}" counts per ${policy.periodMs} ms, which its profile counts per second, ` +
            `and its replay record holds no request of the range to count per ${policy.periodMs} ms`,
        });
      }
      const counted = profileOfRecords(records, policy.periodMs);
      summary = {
        ...summarizeProfile(counted.record, counted.windows, read.fromHour, read.toHour, tier),
        share: summary.share,
      };
    }
    const percentile = query.percentile ?? DEFAULT_PERCENTILE;
    const headroom = query.headroom ?? DEFAULT_HEADROOM;
    const found = recommendLimit(
      summary,
      policy.algorithm,
      limit,
      percentile / 100,
      headroom / 100,
    );
    const replayed = await this.replayedAt(policy, tier, found.limit, summary.fromMs * 1000);
    return {
      policy: name,
      range,
      tier,
      source,
      algorithm: policy.algorithm,
      periodMs: policy.periodMs,
      calendar: summary.calendar,
      percentile,
      headroom,
      base: found.base,
      limit: found.limit,
      currentLimit: limit,
      refused: found.refused,
      refusedNow: found.refusedNow,
      identifiers: found.identifiers.map((each) => identifierView(policy, each)),
      exact: found.exact,
      windows: summary.windows,
      identifierWindows: summary.identifierWindows,
      share: summary.share,
      replayed,
    };
  }

  /** The recorded requests of the tier read (null: every tier) from `sinceUs`; none when off. */
  private async recorded(
    policy: Policy,
    tier: string | null,
    sinceUs: number,
  ): Promise<ReplayRecord[]> {
    if (this.replays === null) return [];
    const read = await readRecords(this.replays, policy.name, sinceUs);
    return tier === null ? read.records : read.records.filter((record) => record.tier === tier);
  }

  /**
   * The recorded requests of the tier read, from `sinceUs`, replayed through the policy's own
   * algorithm at `limit` (its burst, its period, its calendar), from the start of the window
   * holding `sinceUs`: what the limit would have refused, exactly, on the sampled identifiers.
   * Null without a record, or read over every tier of a tiered policy, where no one limit is
   * proposed.
   */
  private async replayedAt(
    policy: Policy,
    tier: string | null,
    limit: number,
    sinceUs: number,
  ): Promise<RecommendationView['replayed']> {
    if (this.replays === null || (tier === null && policy.tiers !== null)) return null;
    const mine = tier ?? '';
    const tiers = Object.fromEntries(
      Object.entries(policy.tiers ?? {}).map(([name, rate]) => [
        name,
        { limit: name === mine ? limit : rate.limit, burst: rate.burst },
      ]),
    );
    const replayed = await replayRange(
      this.replays,
      policy.name,
      {
        algorithm: policy.algorithm,
        limit: mine === '' ? limit : policy.limit,
        periodMs: policy.periodMs,
        burst: policy.burst,
        segments: policy.segments,
        maxDelayMs: policy.maxDelayMs,
        cost: policy.cost,
        penalty: policy.penalty,
        mode: 'enforce',
      },
      tiers,
      policy.calendar,
      mine,
      sinceUs,
      this.clock(),
    );
    if (replayed.records.length === 0) return null;
    return {
      from: new Date(
        replayed.records.reduce((first, record) => Math.min(first, record.atUs), Infinity) / 1000,
      ).toISOString(),
      decided: replayed.decided,
      refused: replayed.refused,
      liveRefused: replayed.liveRefused,
      newlyRefused: replayed.newlyRefused,
      complete: replayed.complete,
    };
  }

  private async read(
    name: string,
    query: ProfileQuery,
  ): Promise<ProfileRead & { fromHour: number; toHour: number }> {
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
    const windows = profileWindowsOf(policy);
    const toHour = Math.floor(nowMs / HOUR_MS);
    // A window longer than the range is read back to the last that ended.
    const fromHour = firstHourRead(windows, toHour, HOURS_BEFORE[range]);
    let record;
    try {
      record = await this.store.read(name, windows, fromHour, toHour, nowMs);
    } catch (error) {
      throw new RedisUnavailableException('the traffic profile cannot be read', error);
    }
    const summary = summarizeProfile(record, windows, fromHour, toHour, tier);
    return { policy, range, tier, limit, summary, fromHour, toHour };
  }
}

/** An identifier as the API shows it, with the limit its tier has now. */
function identifierView(policy: Policy, each: ProfileIdentifier): ProfileIdentifierView {
  return {
    keyKind: each.keyKind,
    identifier: each.identifier,
    key: each.key ?? null,
    tier: each.tier,
    most: each.most,
    limit: (each.tier === null ? undefined : policy.tiers?.[each.tier]?.limit) ?? policy.limit,
  };
}

/** 404 with the admin's error body. */
export function notFound(message: string): NotFoundException {
  return new NotFoundException({ statusCode: 404, error: 'Not Found', message });
}
