import { ALGORITHM_CODES } from '../algorithms/algorithm.types.js';
import type { OutcomeReason, PolicyOutcome, PolicySpec, StoreResult } from './store.types.js';

const REASONS: OutcomeReason[] = ['ok', 'limit', 'blocked', 'shadow'];
const FIELDS_PER_OUTCOME = 9;

const optional = (value: number | null) => (value === null ? '-' : String(value));

/** One policy as operations.lua reads it: words separated by spaces ('-' = not set). */
export function encodeSpec(spec: PolicySpec): string {
  const words = [
    spec.name,
    ALGORITHM_CODES[spec.algorithm],
    spec.limit,
    spec.periodMs,
    optional(spec.burst),
    optional(spec.segments),
    optional(spec.maxDelayMs),
    spec.mode === 'shadow' ? 's' : 'e',
    spec.cost,
  ];
  const rule = spec.penalty;
  if (rule !== null) {
    words.push(
      rule.afterViolations,
      rule.blockMs,
      rule.escalation,
      rule.maxBlockMs,
      rule.forgetAfterMs,
    );
  }
  return words.join(' ');
}

export function decodeReply(reply: unknown, policies: number): StoreResult {
  const numbers = typeof reply === 'string' ? reply.split(' ').map(Number) : [];
  if (numbers.length !== 1 + policies * FIELDS_PER_OUTCOME || numbers.some(Number.isNaN)) {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  const outcomes: PolicyOutcome[] = [];
  for (let at = 1; at < numbers.length; at += FIELDS_PER_OUTCOME) {
    const field = (offset: number) => numbers[at + offset] as number;
    outcomes.push({
      allowed: field(0) === 1,
      reason: REASONS[field(1)] as OutcomeReason,
      remaining: field(2),
      reset: field(3),
      retry: field(4),
      delay: field(5),
      blockedUntil: field(6),
      offence: field(7),
      blockStarted: field(8) === 1,
    });
  }
  return { admitted: numbers[0] === 1, outcomes };
}
