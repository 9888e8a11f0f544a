import { systemClock, type Clock } from '../clock/clock.js';
import {
  busiestFirst,
  IDENTIFIER_STATS_TTL_MS,
  MAX_IDENTIFIERS_PER_POLICY,
  memberOf,
  type IdentifierCount,
  type IdentifierReadOptions,
  type IdentifierStatsStore,
} from './identifier-stats.store.js';

/** Without Redis, the counts live in this process, kept the same way as in Redis. */
export class LocalIdentifierStats implements IdentifierStatsStore {
  private readonly policies = new Map<string, Map<string, IdentifierCount>>();

  constructor(private readonly clock: Clock = systemClock) {}

  add(counts: readonly IdentifierCount[]): Promise<void> {
    for (const count of counts) {
      let members = this.policies.get(count.policy);
      if (members === undefined) {
        members = new Map();
        this.policies.set(count.policy, members);
      }
      const member = memberOf(count);
      const known = members.get(member);
      members.delete(member);
      members.set(member, {
        ...count,
        passed: (known?.passed ?? 0) + count.passed,
        rejected: (known?.rejected ?? 0) + count.rejected,
        lastSeen: Math.max(known?.lastSeen ?? 0, count.lastSeen),
      });
      if (members.size > MAX_IDENTIFIERS_PER_POLICY) {
        members.delete(members.keys().next().value as string);
      }
    }
    return Promise.resolve();
  }

  read(policy: string, options: IdentifierReadOptions = {}): Promise<IdentifierCount[]> {
    const { limit, q } = options;
    const since = Math.floor(this.clock() / 1000) - IDENTIFIER_STATS_TTL_MS;
    const counts = [...(this.policies.get(policy)?.values() ?? [])].filter(
      (count) => count.lastSeen >= since && (q === undefined || count.identifier.includes(q)),
    );
    return Promise.resolve(counts.sort(busiestFirst).slice(0, limit));
  }
}
