import type { Decision } from '../engine/decision.js';
import { guardedResponseHeaders } from '../http/rate-limit.headers.js';
import { setHeader } from '../http/response.access.js';
import type { HeaderStyle } from '../config/sluice-options.interface.js';
import type { RequestHoldings } from './request.holdings.js';
import type { RequestPlan } from './request.plan.js';

/**
 * Step 5: the decision answered — its RateLimit headers on the response, and on a refusal what
 * the admitted identifiers took given back. True when the request passes; the guard then waits
 * out a shaping delay, or refuses it in its transport's way.
 */
export function answered(
  plan: RequestPlan,
  decision: Decision,
  holdings: RequestHoldings,
  style: HeaderStyle,
): boolean {
  for (const [name, value] of guardedResponseHeaders(style, decision, plan.policies)) {
    setHeader(plan.res, name, value);
  }
  if (decision.allowed) return true;
  holdings.giveBack();
  return false;
}
