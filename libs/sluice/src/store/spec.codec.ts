import { ALGORITHM_CODES } from '../algorithms/algorithm.types.js';
import { quiet } from './decide.js';
import type {
  OutcomeReason,
  PolicyOutcome,
  PolicySpec,
  StoreCall,
  StoreResult,
} from './store.types.js';

const REASONS: OutcomeReason[] = ['ok', 'limit', 'blocked', 'shadow'];
const FIELDS_PER_OUTCOME = 10;

const optional = (value: number | null) => (value === null ? '-' : String(value));

const MODE_CODES: Record<PolicySpec['mode'], string> = {
  enforce: 'e',
  shadow: 's',
  candidate: 'c',
};

/**
 * A call's argument as operations.lua reads it (ARGV[3]): a block's duration, a grant's amount,
 * else the lease, if any.
 */
export function callArgument(call: StoreCall): string {
  if (call.op === 'block') return String(call.durationMs ?? 0);
  if (call.op === 'grant' && call.once !== undefined) {
    return `${call.amount ?? 0}${call.undo === true ? '!' : '@'}${call.once}`;
  }
  if (call.op === 'grant' || call.op === 'settle') return String(call.amount ?? 0);
  return call.lease ?? '';
}

/** One policy as operations.lua reads it: words separated by spaces ('-' = not set). */
export function encodeSpec(spec: PolicySpec): string {
  const calendar = spec.calendar;
  // A calendar fixed-window has no burst, segments or delay: its boundaries go in their places.
  const words = [
    spec.name,
    ALGORITHM_CODES[spec.algorithm],
    spec.limit,
    spec.periodMs,
    calendar === undefined ? optional(spec.burst) : calendar.start,
    calendar === undefined ? optional(spec.segments) : calendar.end,
    calendar === undefined ? optional(spec.maxDelayMs) : calendar.next,
    MODE_CODES[spec.mode],
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

/**
 * operations.lua's reply: an array of integers, admitted then ten per policy; or, for the usual
 * admission of one policy, remaining and reset alone (decide.lua, admittedReply).
 */
export function decodeReply(reply: unknown, policies: number): StoreResult {
  const numbers = (Array.isArray(reply) ? reply : []) as number[];
  if (policies === 1 && numbers.length === 2) return decodeAdmission(numbers[0], numbers[1]);
  let valid = numbers.length === 1 + policies * FIELDS_PER_OUTCOME;
  for (let at = 0; valid && at < numbers.length; at++) valid = typeof numbers[at] === 'number';
  if (!valid) throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify(reply)}`);
  const outcomes: PolicyOutcome[] = [];
  for (let at = 1; at < numbers.length; at += FIELDS_PER_OUTCOME) {
    outcomes.push({
      allowed: numbers[at] === 1,
      reason: REASONS[numbers[at + 1] as number] as OutcomeReason,
      remaining: numbers[at + 2] as number,
      reset: numbers[at + 3] as number,
      retry: numbers[at + 4] as number,
      delay: numbers[at + 5] as number,
      blockedUntil: numbers[at + 6] as number,
      offence: numbers[at + 7] as number,
      blockStarted: numbers[at + 8] === 1,
      granted: numbers[at + 9],
    });
  }
  return { admitted: numbers[0] === 1, outcomes };
}

/**
 * An admission of one policy from its short reply's two integers (decide.lua, admittedReply),
 * the rest an admission's defaults; read straight from `operateMany`'s flat list.
 */
export function decodeAdmission(remaining: unknown, reset: unknown): StoreResult {
  if (typeof remaining !== 'number' || typeof reset !== 'number') {
    throw new Error(`sluice: unexpected reply from Redis: ${JSON.stringify([remaining, reset])}`);
  }
  const outcome = quiet();
  outcome.remaining = remaining;
  outcome.reset = reset;
  return { admitted: true, outcomes: [outcome] };
}

/** A grant's or a settlement's reply carries the units used where retry goes. */
export function readQuota(outcome: PolicyOutcome): void {
  outcome.quota = { used: outcome.retry, granted: outcome.granted ?? 0 };
  outcome.retry = 0;
}
