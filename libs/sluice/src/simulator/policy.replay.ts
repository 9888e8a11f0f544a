import { periodAt, type Calendar } from '../clock/calendar.js';
import type { PolicySpec } from '../store/store.types.js';
import { runOperation } from '../store/operations.js';
import type { ReplayRecord } from '../stats/replay.store.js';

export type { ReplayRecord };
import { simulatedState, specOf, type SimulatedPolicy } from './policy.simulator.js';

/** What a rule does with recorded requests, beside what the live rule did. */
export interface ReplayOutcome {
  /** Each record's answer under the rule replayed, in the records' order: true admitted. */
  admitted: boolean[];
  /** Records the rule was asked about (those another policy refused are not). */
  decided: number;
  /** Refused by the rule replayed. */
  refused: number;
  /** Refused by the live rule, of the same records. */
  liveRefused: number;
  /** Refused by the rule replayed and admitted by the live one. */
  newlyRefused: number;
  /** Admitted by the rule replayed and refused by the live one. */
  newlyAdmitted: number;
}

/**
 * Runs recorded requests through the library's TypeScript twin of a rule, each identifier on
 * state of its own, in time order, on the records' clock: the replay of docs/operations.md,
 * "Choosing a limit". A record is decided at its tier's rate (`tiers`, else the rule's own). A
 * record another policy refused is not charged live, nor here. Refusals count whatever the
 * rule's mode: what it would refuse. With `calendar`, a fixed-window counts in its periods, each
 * record in the period holding its time.
 */
export function replayRecords(
  policy: SimulatedPolicy,
  records: readonly ReplayRecord[],
  tiers: Readonly<Record<string, { limit: number; burst?: number | null }>> = {},
  calendar: Calendar | null = null,
): ReplayOutcome {
  const enforced: SimulatedPolicy = { ...policy, mode: 'enforce' };
  const specs = new Map<string, ReturnType<typeof specOf>>();
  const specFor = (tier: string) => {
    let spec = specs.get(tier);
    if (spec === undefined) {
      const rate = tier === '' ? undefined : tiers[tier];
      spec = specOf(
        rate === undefined
          ? enforced
          : { ...enforced, limit: rate.limit, burst: rate.burst ?? null },
      );
      specs.set(tier, spec);
    }
    return spec;
  };
  // A calendar spec carries its period's boundaries: found again only when a record leaves them.
  const dated = new Map<string, PolicySpec>();
  const specAt = (tier: string, atUs: number): PolicySpec => {
    const spec = specFor(tier);
    if (calendar === null) return spec;
    const atMs = atUs / 1000;
    let known = dated.get(tier);
    if (
      known?.calendar === undefined ||
      atMs < known.calendar.start ||
      atMs >= known.calendar.end
    ) {
      known = { ...spec, calendar: periodAt(atMs, calendar) };
      dated.set(tier, known);
    }
    return known;
  };
  const clock = { now: 0 };
  const state = simulatedState(clock);
  const order = records
    .map((record, at) => at)
    .sort((a, b) => (records[a] as ReplayRecord).atUs - (records[b] as ReplayRecord).atUs || a - b);
  const admitted = new Array<boolean>(records.length).fill(true);
  let decided = 0;
  let refused = 0;
  let liveRefused = 0;
  let newlyRefused = 0;
  let newlyAdmitted = 0;
  for (const at of order) {
    const record = records[at] as ReplayRecord;
    if (record.live === 'n') continue;
    decided++;
    clock.now = record.atUs;
    const allowed =
      policy.mode === 'off' ||
      runOperation(
        state,
        { op: 'consume', key: record.member, specs: [specAt(record.tier, record.atUs)] },
        clock.now,
      ).admitted;
    admitted[at] = allowed;
    if (!allowed) refused++;
    if (record.live === 'r') liveRefused++;
    if (!allowed && record.live === 'a') newlyRefused++;
    if (allowed && record.live === 'r') newlyAdmitted++;
  }
  return { admitted, decided, refused, liveRefused, newlyRefused, newlyAdmitted };
}
