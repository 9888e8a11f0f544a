import { HttpException, HttpStatus } from '@nestjs/common';
import { waitText } from '../clock/duration.text.js';
import type { Decision } from '../engine/decision.js';

/** The body of a refusal's 429. */
export interface RefusalBody {
  statusCode: number;
  error: string;
  message: string;
  policy: string;
  retryAfterMs: number;
}

export function refusalBody(decision: Decision): RefusalBody {
  return {
    statusCode: HttpStatus.TOO_MANY_REQUESTS,
    error: 'Too Many Requests',
    message: describe(decision),
    policy: decision.policy,
    retryAfterMs: decision.retryAfterMs,
  };
}

/** The 429 a refused request gets: `{ statusCode, error, message, policy, retryAfterMs }`. */
export class TooManyRequestsException extends HttpException {
  constructor(
    /** The refusal: which policy, why, and how long to wait. */
    readonly decision: Decision,
  ) {
    super(refusalBody(decision), HttpStatus.TOO_MANY_REQUESTS);
  }
}

function describe(decision: Decision): string {
  const wait = `retry in ${waitText(decision.retryAfterMs)}`;
  switch (decision.reason) {
    case 'blocked':
    case 'cache-block':
      return `Blocked by policy "${decision.policy}"; ${wait}`;
    case 'denylist':
      return `Denied by policy "${decision.policy}"`;
    case 'store-error':
      return `Rate limiter unavailable for policy "${decision.policy}"; ${wait}`;
    default:
      // A refusal that carries a block is the violation that started it.
      return decision.blocked === undefined
        ? `Rate limit of policy "${decision.policy}" exceeded; ${wait}`
        : `Blocked by policy "${decision.policy}"; ${wait}`;
  }
}
