import { z } from 'zod';
import { IDENTIFIER_KEY } from '../keys/identifier.js';

/**
 * - `block.started`: a penalty blocked an identifier (offence 1);
 * - `block.escalated`: a further offence blocked it again, for longer (offence 2 and up);
 * - `block.manual`: an operator or application code blocked it by hand;
 * - `block.lifted`: a block was lifted by hand before its end.
 */
export const PENALTY_EVENT_TYPES = [
  'block.started',
  'block.escalated',
  'block.manual',
  'block.lifted',
] as const;
/** One of {@link PENALTY_EVENT_TYPES}. */
export type PenaltyEventType = (typeof PENALTY_EVENT_TYPES)[number];

/** What set off an automatic block: `count` refusals over `limit` within `windowMs`. */
export interface PenaltyTrigger {
  /** Refusals that set it off (the penalty's afterViolations). */
  count: number;
  /** The policy's limit at the time. */
  limit: number;
  /** The policy's period, ms. */
  windowMs: number;
  /** The policy's algorithm. */
  algorithm: string;
}

/**
 * One block's start, escalation, manual start or lifting (docs/architecture.md, a penalty event), as an instance saw it.
 * Times are epoch milliseconds. `id` is unique per event, so a consumer that receives an event
 * twice can tell.
 */
export interface PenaltyEvent {
  /** Unique per event. */
  id: string;
  /** What happened. */
  type: PenaltyEventType;
  /** When the instance saw it, epoch ms. */
  occurredAt: number;
  /** The policy whose block it is. */
  policy: string;
  /** The policy snapshot version the instance enforced (0: code defaults only). */
  policyVersion: number;
  /** The kind of identifier (`ip`, `user`, `header:<name>`, a tracker's name). */
  keyKind: string;
  /** The identifier as an operator reads it (the original, cut to 256 characters). */
  identifier: string;
  /** The offence level of an automatic block; 0 for a manual one and for a lifting. */
  offence: number;
  /** When the block started, by Redis' clock; null for a lifting. */
  startedAt: number | null;
  /** When the block ends (for a lifting: would have ended), by Redis' clock. */
  expiresAt: number;
  /** What set off an automatic block; null for a manual one and for a lifting. */
  trigger: PenaltyTrigger | null;
  /** Who blocked or lifted by hand; null for automatic blocks. */
  actor: string | null;
  /** The reason given by hand, or null. */
  reason: string | null;
  /** The instance that saw it (its heartbeat's id). */
  instanceId: string;
  /** The handler whose request set the block off (`Controller.method`), when one did. */
  route: string | null;
  /**
   * For an identifier over 256 characters, which `identifier` shows cut: its stored key (`#h:`
   * and a digest), which names it whole — lift or reset it by this key.
   */
  key?: string;
}

const epochMs = z.number().int().min(0).max(8.64e15);
const shortText = (max: number) => z.string().min(1).max(max);

const penaltyEventSchema = z.strictObject({
  id: shortText(64),
  type: z.enum(PENALTY_EVENT_TYPES),
  occurredAt: epochMs,
  policy: shortText(64),
  policyVersion: z.number().int().min(0),
  keyKind: shortText(80),
  identifier: shortText(256),
  offence: z.number().int().min(0).max(1_000_000),
  startedAt: epochMs.nullable(),
  expiresAt: epochMs,
  trigger: z
    .strictObject({
      count: z.number().int().min(0),
      limit: z.number().int().min(0),
      windowMs: z.number().int().min(0),
      algorithm: shortText(32),
    })
    .nullable(),
  actor: shortText(200).nullable(),
  reason: z.string().max(500).nullable(),
  instanceId: shortText(200),
  route: shortText(300).nullable(),
  key: z.string().regex(IDENTIFIER_KEY).optional(),
});

/** The event a stream entry holds, or null when it is not one (another version, or damage). */
export function parsePenaltyEvent(text: string): PenaltyEvent | null {
  try {
    const parsed = penaltyEventSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
