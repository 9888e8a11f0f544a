import type { Quota, QuotaOptions } from '../engine/engine.types.js';

// The options and records of SluiceService's operations beyond deciding: blocks by hand, and
// grants with their audit.

/** Who blocks or lifts by hand, and why: recorded with the penalty event. */
export interface ManualBlockOptions {
  /** The kind of identifier; default the policy's `key`. */
  keyKind?: string;
  /** Who acted, as the audit records it. */
  actor?: string;
  /** Why, as the audit records it. */
  reason?: string;
}

/** Lifting a block: as a manual block, or by the stored key its penalty events give. */
export interface LiftOptions extends ManualBlockOptions {
  /**
   * The stored key (`PenaltyEvent.key`) of an identifier over 256 characters, which events show
   * cut: it names the block, and `identifier` (the cut form) labels the events.
   */
  key?: string;
}

/** A grant as the audit records it: who credited whom, by how much, and why. */
export interface GrantRecord {
  /** The quota's policy. */
  policy: string;
  /** Whose quota, as given. */
  identifier: string;
  /** Credits added; negative: taken away. */
  amount: number;
  /** Who granted; 'app' for application code that names no one. */
  actor: string;
  /** Why, or null. */
  note: string | null;
  /** What the caller gave the audit beyond the name (the admin: its request's actor). */
  context?: object;
  /** The caller's key of this grant: the audit grants a retried request once (`GrantOptions.key`). */
  key?: string;
  /** Reads the quota as it is before the grant: the audit entry is written from it. */
  current: () => Promise<Quota>;
  /**
   * Takes the grant back, exactly whether or not `apply` reached the store (and keeps it from
   * being made if it arrives later): for an audit that could not record it.
   */
  revert?: () => Promise<Quota>;
}

/**
 * Where grants are recorded: the admin registers one (`SluiceService.recordGrantsWith`), which
 * writes the audit entry around `apply`, so a grant that fails is not recorded.
 */
export interface GrantAudit {
  /**
   * Writes the entry for `grant`, then `apply`s it, keeping the entry only when it succeeds;
   * answers what `apply` did.
   */
  record(grant: GrantRecord, apply: () => Promise<Quota>): Promise<Quota>;
}

/** Who grants and why, for the audit. */
export interface GrantOptions extends QuotaOptions {
  /** Who granted, as the audit records it. Default 'app'. */
  actor?: string;
  /** Why, as the audit records it. */
  note?: string | null;
  /** Handed to the audit as it is: the admin passes who made the request, address included. */
  context?: object;
  /**
   * A key the caller chooses for this grant (a UUID): with the admin's audit, a grant retried
   * with the same key (after an answer that never came) is made once. Without an audit, unused.
   */
  key?: string;
}

/** An identifier's plan as `tiers.ofIdentifier` gives it (SluiceService.tierOf). */
export interface IdentifierTier {
  /** Whether the module has a `tiers.ofIdentifier` to ask. */
  asked: boolean;
  /** The tier it named, or null. */
  tier: string | null;
  /** The renewal day it named, or null. */
  anchorDay: number | null;
  /** Why it named none: the lookup threw or answered late (`tiers.ofIdentifier: …`), or null. */
  failure: string | null;
}
