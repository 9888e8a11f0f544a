import type { ListEntry, ListEntryInput } from '@sluice/nest/internals';

// The admin API's types: the audit, blocks, the penalty history and the allow and deny lists.

/** One write through the admin, with its actor. */
export interface AuditEntry {
  /** Increasing with every entry. */
  id: number;
  /** When, ISO 8601. */
  occurredAt: string;
  /** Who wrote (the credential's name). */
  actor: string;
  /** The client address the write came from, or null. */
  ip: string | null;
  /** Its User-Agent, or null. */
  userAgent: string | null;
  /** What was done: `policy.replace`, `block.create`, `counters.reset` … */
  action: string;
  /** What it was done to: a policy, or `<policy>/<identifier>`. */
  target: string;
  /** The state before, as the API returns it; null when created. */
  before: unknown;
  /** The state after; null when deleted. */
  after: unknown;
  /** The note given with it, or null. */
  comment: string | null;
  /** The global version after the change. */
  version: number;
}

/** GET /audit, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** A block in force now, as the penalty history records it. */
export interface BlockedEntry {
  /** The policy whose block it is. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it (cut to 256 characters). */
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** 0 for a manual block. */
  offence: number;
  /** `auto` when a penalty set it off, `manual` when set by hand. */
  source: 'auto' | 'manual';
  /** ISO 8601. */
  startedAt: string;
  /** ISO 8601. */
  expiresAt: string;
  /** ms until it ends. */
  timeLeftMs: number;
  /** Who set it by hand; null for an automatic block. */
  createdBy: string | null;
  /** The reason given by hand, or null. */
  reason: string | null;
  /** The handler whose request set it off (`Controller.method`), when one did. */
  route: string | null;
}

/** GET /blocked?policy=&q=&limit=: newest first; `total` counts every match. */
export interface BlockedList {
  /** The blocks of this page. */
  blocked: BlockedEntry[];
  /** Every block that matches. */
  total: number;
}

/** GET /penalties' query: identifier, policy, a time range (ISO 8601, `to` exclusive), a page. */
export type PenaltyQuery = {
  /** Exactly this identifier. */
  identifier?: string;
  /** Identifiers that contain this text (a user name inside `203.0.113.7/<name>`). */
  q?: string;
  /** Only this policy's blocks. */
  policy?: string;
  /** From this time, ISO 8601. */
  from?: string;
  /** Before this time, ISO 8601. */
  to?: string;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** Records per page, 1 to 500. */
  limit?: number;
};

/** GET /audit's query: who, what, a time range (ISO 8601, `to` exclusive), a page. */
export type AuditQuery = {
  /** Only this actor's writes. */
  actor?: string;
  /** Only this action, e.g. `policy.replace`. */
  action?: string;
  /** From this time, ISO 8601. */
  from?: string;
  /** Before this time, ISO 8601. */
  to?: string;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** Entries per page, 1 to 500. */
  limit?: number;
};

/** POST /blocked */
export interface BlockRequest {
  /** The policy to block under. */
  policy: string;
  /** Who: 1 to 256 characters, no control characters. */
  identifier: string;
  /** How long, ms. */
  durationMs: number;
  /** Why, recorded in the history and the audit. */
  reason?: string | null;
  /** What the identifier is; default the policy's `key`. */
  keyKind?: string;
}

/** One allow or deny list entry, with what it matched on every instance. */
export interface ListEntryView extends ListEntry {
  /** True once its expiry has passed: it no longer applies, and stays listed until removed. */
  expired: boolean;
  /**
   * Calls it decided (`enforced`) or would have decided (`shadow`), summed over every instance
   * as each sends them once a second.
   */
  hits: { enforced: number; shadow: number };
}

/** GET /lists: every entry, the oldest first, and how many the lists may hold. */
export interface ListEntryList {
  /** The entries. */
  entries: ListEntryView[];
  /** How many entries the lists hold at most, together. */
  max: number;
}

/** POST /lists: an entry as an operator writes it. */
export type ListEntryRequest = ListEntryInput;

/**
 * POST /lists' query: `confirm=broad` adds an enforced entry that reaches every client (a /0
 * range, a User-Agent pattern matching any) or denies the address or User-Agent of the operator
 * adding it; without it such an entry is refused (400, naming `confirm`). Only an admin may
 * confirm.
 */
export type ListEntryQuery = { confirm?: 'broad' };

/**
 * PATCH /lists/:id: an entry switched between shadow and enforce in place, its counts kept; with
 * `?confirm=broad` as POST needs it for an entry reaching all traffic or its writer.
 */
export interface ListEntryModeChange {
  /** The mode to switch to. */
  mode: 'enforce' | 'shadow';
  /** Why, for the audit. */
  comment?: string | null;
}

/** DELETE /lists/:id: the entry is gone from every instance. */
export interface ListEntryRemoval {
  /** Always true. */
  removed: true;
  /** The global version the removal made. */
  version: number;
}

/** A block set by hand. */
export interface BlockResult {
  /** The policy it is under. */
  policy: string;
  /** The kind of identifier. */
  keyKind: string;
  /** Who. */
  identifier: string;
  /** When it ends, ISO 8601. */
  expiresAt: string;
}

/** DELETE /blocked/:policy/:identifier?keyKind=&reason=&forgetOffences=&key= */
export interface UnblockResult {
  /** Always true: the block was lifted. */
  lifted: true;
}

/** `active` until it ends; `expired` when it ran its course; `lifted` by hand or by a newer block. */
export type PenaltyState = 'active' | 'expired' | 'lifted';

/** One block in the penalty history. */
export interface PenaltyRecord {
  /** The penalty event's id. */
  id: string;
  /** The policy whose block it is. */
  policy: string;
  /** The policy snapshot version the instance enforced. */
  policyVersion: number;
  /** The kind of identifier. */
  keyKind: string;
  /** Who, as an operator reads it (cut to 256 characters). */
  identifier: string;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key, which
   * names it whole. Pass it as `key` to lift or reset. Null when `identifier` is whole.
   */
  key: string | null;
  /** The offence level of an automatic block; 0 for a manual one. */
  offence: number;
  /** What set off an automatic block; null for a manual one. */
  trigger: { count: number; limit: number; windowMs: number; algorithm: string } | null;
  /** ISO 8601. */
  startedAt: string;
  /** When it ends or ended, ISO 8601. */
  expiresAt: string;
  /** How long it was set for, ms. */
  durationMs: number;
  /** `auto` when a penalty set it off, `manual` when set by hand. */
  source: 'auto' | 'manual';
  /** Who set it by hand; null for an automatic block. */
  createdBy: string | null;
  /** The reason given by hand, or null. */
  reason: string | null;
  /** Whether it is in force, ran its course, or was lifted. */
  state: PenaltyState;
  /** When it was lifted, ISO 8601, or null. */
  liftedAt: string | null;
  /** Who lifted it, or null (a newer block replaced it). */
  liftedBy: string | null;
  /** The reason given for lifting, or null. */
  liftReason: string | null;
  /** The instance that saw it start, or null. */
  instanceId: string | null;
  /** The handler whose request set it off (`Controller.method`), when one did. */
  route: string | null;
}

/** GET /penalties, newest first; pass `nextCursor` as `cursor` for the next page. */
export interface PenaltyPage {
  /** Newest first. */
  penalties: PenaltyRecord[];
  /** Null on the last page. */
  nextCursor: string | null;
}
