/** One identifier's traffic under one policy over some interval. */
export interface IdentifierCount {
  /** The policy. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** As an operator reads it: the original, cut to 256 characters. */
  identifier: string;
  /** For an identifier cut to 256 characters: its stored key, which names it whole. */
  key?: string;
  /** Requests admitted. */
  passed: number;
  /** Requests refused. */
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
  /** Adds each count to its identifier's totals. */
  add(counts: readonly IdentifierCount[]): Promise<void>;
  /**
   * The policy's `limit` busiest identifiers (all when absent), in rejections first, then in
   * passes; with `q`, only those whose identifier contains it. A store reads what the answer needs,
   * not the whole policy, where it can.
   */
  read(policy: string, options?: IdentifierReadOptions): Promise<IdentifierCount[]>;
}

/** Which identifiers a read returns. */
export interface IdentifierReadOptions {
  /** At most this many, the busiest first. */
  limit?: number;
  /** Only identifiers that contain this text. */
  q?: string;
}

export const MAX_IDENTIFIERS_PER_POLICY = 10_000;
export const IDENTIFIER_STATS_TTL_MS = 86_400_000;

/**
 * One member per (keyKind, identifier): `<keyKind>NUL<identifier>`, or for a cut identifier
 * `<keyKind>NUL NUL<key>NUL<identifier>`. NUL cannot appear in a key kind or a key, and an
 * identifier is never empty, so each reads back one way.
 */
export function memberOf(count: Pick<IdentifierCount, 'keyKind' | 'identifier' | 'key'>): string {
  if (count.key !== undefined)
    return `${count.keyKind}\u0000\u0000${count.key}\u0000${count.identifier}`;
  return `${count.keyKind}\u0000${count.identifier}`;
}

/** A member read back: its key kind, identifier and, for a cut identifier, its stored key; null if malformed. */
export function parseMember(
  member: string,
): Pick<IdentifierCount, 'keyKind' | 'identifier' | 'key'> | null {
  const at = member.indexOf('\u0000');
  if (at <= 0 || at + 1 >= member.length) return null;
  const keyKind = member.slice(0, at);
  if (member[at + 1] !== '\u0000') return { keyKind, identifier: member.slice(at + 1) };
  const end = member.indexOf('\u0000', at + 2);
  if (end < 0 || end + 1 >= member.length) return null;
  return { keyKind, key: member.slice(at + 2, end), identifier: member.slice(end + 1) };
}

export function busiestFirst(a: IdentifierCount, b: IdentifierCount): number {
  return b.rejected - a.rejected || b.passed - a.passed || b.lastSeen - a.lastSeen;
}
