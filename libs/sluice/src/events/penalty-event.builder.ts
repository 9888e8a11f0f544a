import { createHash, randomUUID } from 'node:crypto';
import type { Decision } from '../engine/decision.js';
import { keyOfCut, storedForm } from '../keys/identifier.js';
import { toIdentifier } from '../keys/key.builder.js';
import type { Policy } from '../policy/policy.types.js';
import { blockDuration } from '../penalty/penalty.js';
import type { PenaltyEvent, PenaltyEventType } from '../penalty/penalty.event.js';

/** Who an event is about, and what this instance knows of itself. */
export interface PenaltyContext {
  /** The kind of identifier. */
  keyKind: string;
  /** The identifier as given. */
  identifier: string;
  /** The stored key, when the identifier was named by it (a lifting by key). */
  key?: string;
  /** This instance's id. */
  instanceId: string;
  /** The snapshot version this instance enforces. */
  policyVersion: number;
  /** The handler deciding (`Controller.method`), when one is. */
  route?: string;
}

/** What an event says beyond who it is about. */
export type PenaltyDetails = Pick<PenaltyEvent, 'expiresAt'> &
  Partial<Pick<PenaltyEvent, 'offence' | 'startedAt' | 'trigger' | 'actor' | 'reason'>>;

/** One event to publish, and whether this process's own listeners hear of it too. */
export interface PenaltyNews {
  type: PenaltyEventType;
  policy: string;
  details: PenaltyDetails;
  inProcess: boolean;
}

/**
 * The blocks a refused decision reports. One this request set off is news in-process and on
 * the stream; one this instance learns of from Redis (another instance set it off, or the reply
 * that started it was lost) goes on the stream only.
 */
export function blocksIn(decision: Decision, policies: readonly Policy[]): PenaltyNews[] {
  const news: PenaltyNews[] = [];
  for (const part of decision.policies) {
    if (part.blocked === undefined) continue;
    const policy = policies.find((each) => each.name === part.policy);
    const { offence, untilMs, started = false } = part.blocked;
    news.push({
      type: offence > 1 ? 'block.escalated' : 'block.started',
      policy: part.policy,
      details: {
        offence,
        startedAt: untilMs - durationMs(policy, offence),
        expiresAt: untilMs,
        trigger: policy && {
          count: policy.penalty?.afterViolations ?? 0,
          limit: part.limit,
          windowMs: policy.periodMs,
          algorithm: policy.algorithm,
        },
      },
      inProcess: started,
    });
  }
  return news;
}

/**
 * A block's id, derived from the block (its key and its end), so every instance that reports
 * it gives the same one and the admin records it once; a lifting is its own event each time.
 */
export function penaltyEventId(
  type: PenaltyEventType,
  policy: string,
  context: PenaltyContext,
  expiresAt: number,
): string {
  if (type === 'block.lifted') return randomUUID();
  const stored = context.key ?? storedForm(context.identifier);
  const key = [policy, context.keyKind, stored, String(expiresAt)].join('\u0000');
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

export function penaltyEvent(
  id: string,
  news: Omit<PenaltyNews, 'inProcess'>,
  context: PenaltyContext,
  occurredAt: number,
): PenaltyEvent {
  const { type, policy, details } = news;
  // Only an identifier cut for display carries its key, so consumers of earlier releases, which
  // refuse fields they do not know, still read every other event.
  const key = context.key ?? keyOfCut(context.identifier);
  return {
    id,
    type,
    occurredAt,
    policy,
    policyVersion: context.policyVersion,
    keyKind: context.keyKind,
    identifier: toIdentifier(context.identifier).display,
    offence: details.offence ?? 0,
    startedAt: details.startedAt ?? null,
    expiresAt: details.expiresAt,
    trigger: details.trigger ?? null,
    actor: details.actor ?? null,
    reason: details.reason ?? null,
    instanceId: context.instanceId,
    route: context.route ?? null,
    ...(key === undefined ? {} : { key }),
  };
}

/** How long an automatic block at this offence lasts: the library's own rule, in whole ms. */
function durationMs(policy: Policy | undefined, offence: number): number {
  const rule = policy?.penalty;
  if (rule === null || rule === undefined) return 0;
  const micros = blockDuration(
    {
      afterViolations: rule.afterViolations,
      block: rule.blockMs * 1000,
      escalation: rule.escalation,
      maxBlock: rule.maxBlockMs * 1000,
      forgetAfter: rule.forgetAfterMs * 1000,
    },
    offence,
  );
  return Math.round(micros / 1000);
}
