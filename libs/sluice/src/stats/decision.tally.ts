import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Clock } from '../clock/clock.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import type { Decision } from '../engine/decision.js';
import { DECISION_STATS, SLUICE_CLOCK } from '../config/sluice.tokens.js';
import {
  candidateOutcomeOf,
  candidateStatsName,
  outcomeOf,
  sampledStatsName,
  tierStatsName,
} from './decision-outcome.js';
import {
  COUNT_OF_OUTCOME,
  noCounts,
  type DecisionCounts,
  type DecisionStatsStore,
  type PolicyCounts,
} from './decision-stats.store.js';

/**
 * Just past each second's end, so a reader that waits half a second after a second has ended
 * finds every instance's share of it.
 */
const FLUSH_AFTER_SECOND_MS = 50;
const LOG_EVERY_MS = 60_000;

/**
 * Adds up this instance's decisions per policy and second in memory and sends them to the
 * decision stats once a second: the store's work grows with the number of policies, not traffic.
 */
@Injectable()
export class DecisionTally
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new ThrottledLogger(new Logger('Sluice'), LOG_EVERY_MS, () =>
    this.clock(),
  );
  /** The second being counted, and its counts by policy. */
  private second = 0;
  private current = new Map<string, PolicyCounts>();
  /** Seconds that ended since the last flush. */
  private ended: PolicyCounts[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    @Inject(DECISION_STATS) private readonly store: DecisionStatsStore,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.schedule();
  }

  /**
   * Sends what was counted before any module's onApplicationShutdown, while an app's own Redis
   * client is still open; onApplicationShutdown sends what comes after.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.flush();
  }

  count(decision: Decision): void {
    const second = Math.floor(this.clock() / 1_000_000) * 1_000;
    if (second !== this.second) this.startSecond(second);
    for (const part of decision.policies) {
      const outcome = outcomeOf(decision, part);
      if (outcome === null) continue;
      this.countsOf(part.policy, second)[COUNT_OF_OUTCOME[outcome]]++;
      // A tier's decisions are counted again under its own series, for the charts by plan.
      if (part.tier !== undefined) {
        this.countsOf(tierStatsName(part.policy, part.tier), second)[COUNT_OF_OUTCOME[outcome]]++;
      }
    }
    if (decision.candidates === undefined) return;
    for (const part of decision.candidates) {
      const counts = this.countsOf(candidateStatsName(part.policy), second);
      counts[COUNT_OF_OUTCOME[candidateOutcomeOf(part)]]++;
      const live = decision.policies.find((each) => each.policy === part.policy);
      if (live === undefined) continue;
      // Beside the candidate's own verdict, the live policy's own: admitted counts as admitted
      // here even when another policy refused the request.
      const outcome = outcomeOf(decision, live) ?? (live.delayMs > 0 ? 'delayed' : 'allowed');
      this.countsOf(sampledStatsName(part.policy), second)[COUNT_OF_OUTCOME[outcome]]++;
    }
  }

  private countsOf(policy: string, second: number): DecisionCounts {
    let entry = this.current.get(policy);
    if (entry === undefined) {
      entry = { policy, at: second, counts: noCounts() };
      this.current.set(policy, entry);
    }
    return entry.counts;
  }

  async flush(): Promise<void> {
    const counted = [...this.ended, ...this.current.values()];
    this.ended = [];
    this.current = new Map();
    if (counted.length === 0) return;
    try {
      await this.store.add(counted);
    } catch (error) {
      this.logger.warn(`Decision counts of the last second were not stored: ${String(error)}`);
    }
  }

  private startSecond(second: number): void {
    for (const entry of this.current.values()) this.ended.push(entry);
    this.current = new Map();
    this.second = second;
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = Math.floor(this.clock() / 1000);
    const wait = 1_000 - (now % 1_000) + FLUSH_AFTER_SECOND_MS;
    this.timer = setTimeout(() => {
      void this.flush();
      this.schedule();
    }, wait);
    this.timer.unref();
  }
}
