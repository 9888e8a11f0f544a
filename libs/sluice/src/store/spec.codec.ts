import { ALGORITHM_CODES } from '../algorithms/algorithm.types.js';
import type { OutcomeReason, PolicySpec, StoreResult } from './store.types.js';

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
  if (!Array.isArray(reply) || reply.length !== 1 + policies * FIELDS_PER_OUTCOME) {
    throw new Error(`sluice: unexpected script reply ${JSON.stringify(reply)}`);
  }
  const numbers = reply as number[];
  const outcomes = [];
  for (let offset = 1; offset < numbers.length; offset += FIELDS_PER_OUTCOME) {
    const [allowed, reason, remaining, reset, retry, delay, blockedUntil, offence, started] =
      numbers.slice(offset, offset + FIELDS_PER_OUTCOME) as number[] & { length: 9 };
    outcomes.push({
      allowed: allowed === 1,
      reason: REASONS[reason as number] as OutcomeReason,
      remaining: remaining as number,
      reset: reset as number,
      retry: retry as number,
      delay: delay as number,
      blockedUntil: blockedUntil as number,
      offence: offence as number,
      blockStarted: started === 1,
    });
  }
  return { admitted: numbers[0] === 1, outcomes };
}
