import type { ReplayRecord } from './replay.store.js';
import {
  fieldOf,
  foldWindow,
  HOUR_MS,
  identifierHash,
  TOP_PER_HOUR,
  type ProfileWindows,
} from './traffic-profile.js';
import type { ProfileHour, ProfileRecord } from './traffic-profile.store.js';

/**
 * A profile counted from the replay record instead of the store: each recorded identifier's
 * requests per window of `periodMs` exactly, for periods the store cannot count in (under a
 * second, docs/algorithms.md "A recommended limit"). The records are the sampled identifiers'
 * (the same sample as the profile's), so `share` is 1 over them: every recorded identifier is
 * counted whole. A window is filed under the hour it ends in, as the store files it.
 */
export function profileOfRecords(
  records: readonly ReplayRecord[],
  periodMs: number,
): { record: ProfileRecord; windows: ProfileWindows } {
  const windows: ProfileWindows = { kind: 'fixed', key: String(periodMs), windowMs: periodMs };
  const counted = new Map<number, Map<string, number>>();
  for (const each of records) {
    const window = Math.floor(each.atUs / 1000 / periodMs);
    let fields = counted.get(window);
    if (fields === undefined) {
      fields = new Map();
      counted.set(window, fields);
    }
    const field = fieldOf(identifierHash(each.member), each.tier, each.member);
    fields.set(field, (fields.get(field) ?? 0) + 1);
  }
  const hours = new Map<number, { fields: ProfileHour['fields']; top: Map<string, number> }>();
  for (const [window, fields] of counted) {
    const hour = Math.floor(((window + 1) * periodMs - 1) / HOUR_MS);
    let kept = hours.get(hour);
    if (kept === undefined) {
      kept = { fields: new Map(), top: new Map() };
      hours.set(hour, kept);
    }
    foldWindow(fields, 0, kept.fields, kept.top);
  }
  return {
    windows,
    record: {
      level: 0,
      late: 0,
      hours: [...hours]
        .sort((a, b) => a[0] - b[0])
        .map(([hour, { fields, top }]) => ({
          hour,
          fields,
          top: [...top]
            .map(([member, count]) => ({ member, count }))
            .sort((a, b) => b.count - a.count)
            .slice(0, TOP_PER_HOUR),
        })),
    },
  };
}
