import { ConflictException, Inject, Injectable } from '@nestjs/common';
import {
  parseMember,
  PolicyRegistry,
  REPLAY_STORE,
  SLUICE_CLOCK,
  type Calendar,
  type Clock,
  type ReplayRecord,
  type ReplayStore,
} from '@sluice/nest/internals';
import type {
  ReplayIdentifierView,
  ReplayMinuteView,
  ReplayRequest,
  ReplayView,
} from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { notFound } from './profiles.service.js';
import { replayRange } from './replay.range.js';

const DEFAULT_REPLAY_MINUTES = 60;
/** Identifiers a replay lists. */
const REPLAY_IDENTIFIERS = 50;
const MINUTE_MS = 60_000;

/** A policy's recorded requests replayed through a rule (docs/algorithms.md, "Replay"). */
@Injectable()
export class ReplaysService {
  constructor(
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
    @Inject(REPLAY_STORE) private readonly replays: ReplayStore | null,
  ) {}

  /**
   * The policy's recorded requests over the last `minutes`, replayed through `rule` (the policy
   * with those fields changed) beside what the live rule did. Nothing is applied.
   */
  async replay(name: string, body: ReplayRequest): Promise<ReplayView> {
    const policy = this.policies.get(name);
    if (policy === undefined) throw notFound(`no policy named "${name}" is in force`);
    if (this.replays === null) {
      throw notFound("replay is off: SluiceModule's trafficProfile keeps no record");
    }
    if (policy.algorithm === 'concurrency') {
      throw new ConflictException({
        statusCode: 409,
        error: 'Conflict',
        message: `policy "${name}" limits requests in flight: it has no rate to replay`,
      });
    }
    const asked = body.rule ?? {};
    const rule = {
      algorithm: asked.algorithm ?? policy.algorithm,
      limit: asked.limit ?? policy.limit,
      periodMs: asked.periodMs ?? policy.periodMs,
      burst: asked.burst === undefined ? policy.burst : asked.burst,
      segments: asked.segments === undefined ? policy.segments : asked.segments,
      maxDelayMs: asked.maxDelayMs === undefined ? policy.maxDelayMs : asked.maxDelayMs,
    };
    const tiers =
      asked.tiers ??
      (policy.tiers === null
        ? null
        : Object.fromEntries(
            Object.entries(policy.tiers).map(([tier, rate]) => [
              tier,
              { limit: rate.limit, burst: rate.burst },
            ]),
          ));
    // A calendar quota's periods stay its own while the rule keeps its algorithm and period.
    let calendar: Calendar | null =
      policy.calendar !== null && rule.algorithm === 'fixed-window' && asked.periodMs === undefined
        ? policy.calendar
        : null;
    if (asked.calendar !== undefined) {
      if (asked.calendar !== null && rule.algorithm !== 'fixed-window') {
        throw new InvalidRequestException([
          { field: 'rule.calendar', message: 'only a fixed-window counts in calendar periods' },
        ]);
      }
      calendar =
        asked.calendar === null
          ? null
          : {
              unit: asked.calendar.unit,
              timeZone: asked.calendar.timeZone ?? 'UTC',
              anchorDay:
                asked.calendar.unit === 'month' ? (asked.calendar.anchorDay ?? null) : null,
            };
    }
    const minutes = body.minutes ?? DEFAULT_REPLAY_MINUTES;
    const nowUs = this.clock();
    const sinceUs = nowUs - minutes * MINUTE_MS * 1000;
    const replayed = await replayRange(
      this.replays,
      name,
      { ...rule, cost: policy.cost, penalty: policy.penalty, mode: 'enforce' },
      tiers ?? {},
      calendar,
      null,
      sinceUs,
      nowUs,
    );
    const records = replayed.records;
    return {
      policy: name,
      rule: { ...rule, calendar, tiers },
      from: new Date(sinceUs / 1000).toISOString(),
      to: new Date(nowUs / 1000).toISOString(),
      oldest: replayed.oldestUs === null ? null : new Date(replayed.oldestUs / 1000).toISOString(),
      history: new Date(replayed.historyUs / 1000).toISOString(),
      complete: replayed.complete,
      records: records.length,
      identifiers: new Set(records.map((record) => record.member)).size,
      decided: replayed.decided,
      liveRefused: replayed.liveRefused,
      refused: replayed.refused,
      newlyRefused: replayed.newlyRefused,
      newlyAdmitted: replayed.newlyAdmitted,
      byIdentifier: byIdentifier(records, replayed.admitted),
      timeline: timeline(records, replayed.admitted),
    };
  }
}

/** Per identifier: its decided requests, and how many each rule refused; the most changed first. */
function byIdentifier(
  records: readonly ReplayRecord[],
  admitted: readonly boolean[],
): ReplayIdentifierView[] {
  const counts = new Map<string, { requests: number; liveRefused: number; refused: number }>();
  records.forEach((record, at) => {
    if (record.live === 'n') return;
    let count = counts.get(record.member);
    if (count === undefined) {
      count = { requests: 0, liveRefused: 0, refused: 0 };
      counts.set(record.member, count);
    }
    count.requests++;
    if (record.live === 'r') count.liveRefused++;
    if (admitted[at] === false) count.refused++;
  });
  const views: ReplayIdentifierView[] = [];
  for (const [member, count] of counts) {
    const parsed = parseMember(member);
    if (parsed === null) continue;
    views.push({
      keyKind: parsed.keyKind,
      identifier: parsed.identifier,
      key: parsed.key ?? null,
      ...count,
    });
  }
  const changed = (view: ReplayIdentifierView) => Math.abs(view.refused - view.liveRefused);
  return views
    .sort((a, b) => changed(b) - changed(a) || b.refused - a.refused || b.requests - a.requests)
    .slice(0, REPLAY_IDENTIFIERS);
}

/** Minute by minute, in order: the decided requests and each rule's refusals. */
function timeline(
  records: readonly ReplayRecord[],
  admitted: readonly boolean[],
): ReplayMinuteView[] {
  const minutes = new Map<number, { requests: number; liveRefused: number; refused: number }>();
  records.forEach((record, at) => {
    if (record.live === 'n') return;
    const minute = Math.floor(record.atUs / 1000 / MINUTE_MS);
    let count = minutes.get(minute);
    if (count === undefined) {
      count = { requests: 0, liveRefused: 0, refused: 0 };
      minutes.set(minute, count);
    }
    count.requests++;
    if (record.live === 'r') count.liveRefused++;
    if (admitted[at] === false) count.refused++;
  });
  return [...minutes]
    .sort((a, b) => a[0] - b[0])
    .map(([minute, count]) => ({ at: new Date(minute * MINUTE_MS).toISOString(), ...count }));
}
