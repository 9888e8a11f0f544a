import type { AlgorithmName } from '../algorithms/algorithm.types.js';

export type Operation = 'consume' | 'peek' | 'refund' | 'reset' | 'block' | 'unblock';

/** A penalty rule in milliseconds, as a policy states it. */
export interface PenaltyRule {
  afterViolations: number;
  blockMs: number;
  escalation: number;
  maxBlockMs: number;
  forgetAfterMs: number;
}

/** What a store needs of one policy for one call: the policy with its override applied. */
export interface PolicySpec {
  name: string;
  algorithm: AlgorithmName;
  limit: number;
  periodMs: number;
  burst: number | null;
  segments: number | null;
  maxDelayMs: number | null;
  mode: 'enforce' | 'shadow';
  cost: number;
  penalty: PenaltyRule | null;
}

export interface StoreCall {
  op: Operation;
  /** `<prefix>:{<keyKind>:<identifier>}`: every key of the call shares its hash tag. */
  key: string;
  specs: PolicySpec[];
  /** block: how long, ms. */
  durationMs?: number;
}

export type OutcomeReason = 'ok' | 'limit' | 'blocked' | 'shadow';

/**
 * One policy's answer. Durations in µs; blockedUntil is a time, µs (0: not blocked). For
 * unblock, blockedUntil is when the lifted block would have ended (0: there was none).
 */
export interface PolicyOutcome {
  allowed: boolean;
  reason: OutcomeReason;
  remaining: number;
  reset: number;
  retry: number;
  delay: number;
  blockedUntil: number;
  offence: number;
  /** This call started the block. */
  blockStarted: boolean;
}

export interface StoreResult {
  /** Every enforced policy admitted the request, so every one of them was charged. */
  admitted: boolean;
  outcomes: PolicyOutcome[];
}

export interface SluiceStore {
  run(call: StoreCall): Promise<StoreResult>;
}
