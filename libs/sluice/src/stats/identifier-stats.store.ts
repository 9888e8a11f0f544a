/** One identifier's traffic under one policy over some interval. */
export interface IdentifierCount {
  policy: string;
  keyKind: string;
  /** As an operator reads it: the original, cut to 256 characters. */
  identifier: string;
  passed: number;
  rejected: number;
  /** Epoch ms of its last request. */
  lastSeen: number;
}

/**
 * Where instances add up per-identifier traffic once a second and the admin reads the busiest:
 * Redis sorted sets, or this process without Redis. Each policy keeps its most recently seen
 * identifiers only (`MAX_IDENTIFIERS_PER_POLICY`), for a day after the last request.
 */
export interface IdentifierStatsStore {
  add(counts: readonly IdentifierCount[]): Promise<void>;
  /** The policy's identifiers, busiest in rejections first, then in passes. */
  read(policy: string): Promise<IdentifierCount[]>;
}

export const MAX_IDENTIFIERS_PER_POLICY = 10_000;
export const IDENTIFIER_STATS_TTL_MS = 86_400_000;

/** One member per (keyKind, identifier); NUL cannot appear in a key kind. */
export function memberOf(count: Pick<IdentifierCount, 'keyKind' | 'identifier'>): string {
  return `${count.keyKind}\u0000${count.identifier}`;
}

export function parseMember(member: string): { keyKind: string; identifier: string } | null {
  const at = member.indexOf('\u0000');
  if (at <= 0) return null;
  return { keyKind: member.slice(0, at), identifier: member.slice(at + 1) };
}

export function busiestFirst(a: IdentifierCount, b: IdentifierCount): number {
  return b.rejected - a.rejected || b.passed - a.passed || b.lastSeen - a.lastSeen;
}
