import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Decision } from '../engine/decision.js';
import type { Clock } from '../clock/clock.js';
import { IDENTIFIER_STATS, SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import { PeriodicTask } from '../clock/periodic.task.js';
import { getOrAdd, newMap } from '../collections/get-or-add.js';
import { displayForm, keyOfCut } from '../keys/identifier.js';
import { candidateStatsName } from './decision-outcome.js';
import type { IdentifierCount, IdentifierStatsStore } from './identifier-stats.store.js';

const FLUSH_EVERY_MS = 1_000;
/** Per policy and flush, only the busiest go to the store: its work follows policies, not traffic. */
const SENT_PER_POLICY = 100;
/** Distinct (policy, identifier) pairs counted per second; more are left out until the flush. */
const TRACKED_PER_FLUSH = 50_000;
const LOG_EVERY_MS = 60_000;

/** An identifier as the stats name it: shown cut to 256 characters, with its key when cut. */
type Shown = Pick<IdentifierCount, 'identifier' | 'key'>;

/**
 * Counts each identifier's passes and rejections per policy in memory and sends the busiest to
 * the identifier stats once a second, for the admin's GET /identifiers.
 */
@Injectable()
export class IdentifierTally
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new ThrottledLogger(new Logger('Sluice'), LOG_EVERY_MS, () =>
    this.clock(),
  );
  /** Policy → key kind → identifier → its counts since the last flush. */
  private current = new Map<string, Map<string, Map<string, IdentifierCount>>>();
  private tracked = 0;
  private readonly flushes = new PeriodicTask(() => this.send(), FLUSH_EVERY_MS);

  constructor(
    @Inject(IDENTIFIER_STATS) private readonly store: IdentifierStatsStore,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.flushes.start();
  }

  /**
   * Sends what was counted before any module's onApplicationShutdown, while an app's own Redis
   * client is still open; onApplicationShutdown sends what comes after.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.send();
  }

  async onApplicationShutdown(): Promise<void> {
    // The last counts leave at once, before the connection's own shutdown, which runs beside this.
    // A flush under way took what it sends already; this sends what came since.
    const stopping = this.flushes.stop();
    await this.send();
    await stopping;
  }

  /**
   * Counts each policy of a decision under the key kind they all counted by. A policy that
   * admitted a refused request counts neither way: the request did not pass.
   */
  count(decision: Decision, keyKind: string, identifier: string): void {
    const now = Math.floor(this.clock() / 1000);
    // An identifier cut for display is counted, and named, by its stored key.
    const key = keyOfCut(identifier);
    const shown: Shown =
      key === undefined ? { identifier } : { identifier: displayForm(identifier), key };
    for (const part of decision.policies) {
      const passed = part.allowed && decision.allowed;
      if (part.allowed && !passed) continue;
      this.add(part.policy, keyKind, shown, passed, now);
    }
    if (decision.candidates !== undefined) this.countDifferences(decision, keyKind, shown, now);
  }

  /**
   * Where a candidate and its live policy answer differently, under the candidate's stats name:
   * `rejected` counts the requests the candidate would refuse and live admits, `passed` those
   * live refuses and the candidate would admit (docs/architecture.md, "Shadow candidates").
   */
  private countDifferences(decision: Decision, keyKind: string, shown: Shown, now: number): void {
    for (const candidate of decision.candidates ?? []) {
      const live = decision.policies.find((part) => part.policy === candidate.policy);
      if (live === undefined || live.allowed === candidate.allowed) continue;
      this.add(candidateStatsName(candidate.policy), keyKind, shown, candidate.allowed, now);
    }
  }

  private add(policy: string, keyKind: string, shown: Shown, passed: boolean, now: number): void {
    const counts = this.countsOf(policy, keyKind);
    const name = shown.key ?? shown.identifier;
    let entry = counts.get(name);
    if (entry === undefined) {
      if (this.tracked >= TRACKED_PER_FLUSH) return;
      // Field by field: a spread in a literal costs a runtime call, paid per new identifier.
      entry = {
        policy,
        keyKind,
        identifier: shown.identifier,
        passed: 0,
        rejected: 0,
        lastSeen: now,
      };
      if (shown.key !== undefined) entry.key = shown.key;
      counts.set(name, entry);
      this.tracked++;
    }
    if (passed) entry.passed++;
    else entry.rejected++;
    entry.lastSeen = now;
  }

  private countsOf(policy: string, keyKind: string): Map<string, IdentifierCount> {
    return getOrAdd(getOrAdd(this.current, policy, newMap), keyKind, newMap);
  }

  /** Sends what was counted since the last flush; joins a flush under way. */
  flush(): Promise<void> {
    return this.flushes.run();
  }

  private async send(): Promise<void> {
    if (this.tracked === 0) return;
    const counted = this.current;
    this.current = new Map();
    this.tracked = 0;
    const sent = [...counted.values()].flatMap((byKind) =>
      [...byKind.values()]
        .flatMap((counts) => [...counts.values()])
        .sort((a, b) => b.rejected - a.rejected || b.passed - a.passed)
        .slice(0, SENT_PER_POLICY),
    );
    try {
      await this.store.add(sent);
    } catch (error) {
      this.logger.warn(`Identifier counts of the last second were not stored: ${String(error)}`);
    }
  }
}
