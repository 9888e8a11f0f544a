/** A policy's penalty rule in µs, as both twins read it from the spec. */
export interface PenaltyParams {
  afterViolations: number;
  block: number;
  escalation: number;
  maxBlock: number;
  forgetAfter: number;
}

/**
 * State per identifier and policy: the end of the current or last block (blockedUntil), how many
 * blocks so far (offence), and the rejections counted towards the next one (violations, since).
 */
export interface PenaltyState {
  blockedUntil: number;
  offence: number;
  violations: number;
  since: number;
}

export const NO_PENALTY: PenaltyState = { blockedUntil: 0, offence: 0, violations: 0, since: 0 };

/**
 * A block set by hand keeps `since` = 1 while no violations are counted (`since` is read only when
 * there are some): shadow mode does not suspend it, as it suspends the policy's own blocks. The
 * stored form stays four numbers, so an instance of an earlier release reads it as before.
 */
const MANUAL = 1;

export function isManual(state: PenaltyState): boolean {
  return state.violations === 0 && state.since === MANUAL;
}

export function isBlocked(state: PenaltyState, now: number): boolean {
  return state.blockedUntil > now;
}

/** Offences are forgotten forgetAfter after the end of the last block. */
function currentOffence(state: PenaltyState, now: number, forgetAfter: number): number {
  return state.offence > 0 && now < state.blockedUntil + forgetAfter ? state.offence : 0;
}

/** block × escalation^(offence - 1), capped at maxBlock, one integer step at a time. */
export function blockDuration(rule: PenaltyParams, offence: number): number {
  let duration = Math.min(rule.block, rule.maxBlock);
  for (let level = 2; level <= offence; level++) {
    const longer = Math.min(rule.maxBlock, Math.floor(duration * rule.escalation));
    if (longer === duration) break;
    duration = longer;
  }
  return duration;
}

/** Counts one rejection; the afterViolations-th within one period starts a block. */
export function violate(
  state: PenaltyState,
  now: number,
  period: number,
  rule: PenaltyParams,
): { state: PenaltyState; started: boolean } {
  const fresh = state.violations === 0 || now - state.since >= period;
  const violations = fresh ? 1 : state.violations + 1;
  const since = fresh ? now : state.since;
  if (violations < rule.afterViolations) {
    return { state: { ...state, violations, since }, started: false };
  }
  const offence = currentOffence(state, now, rule.forgetAfter) + 1;
  return {
    state: { blockedUntil: now + blockDuration(rule, offence), offence, violations: 0, since: 0 },
    started: true,
  };
}

export function block(state: PenaltyState, now: number, duration: number): PenaltyState {
  return { ...state, blockedUntil: now + duration, violations: 0, since: MANUAL };
}

/** Lifts a block; the offence stays remembered, counted from now. */
export function unblock(state: PenaltyState, now: number): PenaltyState {
  return {
    ...state,
    blockedUntil: Math.min(state.blockedUntil, now),
    violations: 0,
    since: 0,
  };
}

/** Until the state equals no penalty at all, µs. */
export function penaltyTtl(
  state: PenaltyState,
  now: number,
  period: number,
  forgetAfter: number,
): number {
  let ttl = state.blockedUntil - now;
  if (state.offence > 0) ttl = Math.max(ttl, state.blockedUntil + forgetAfter - now);
  if (state.violations > 0) ttl = Math.max(ttl, state.since + period - now);
  return ttl;
}
