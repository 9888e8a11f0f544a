// How the webhook dispatcher spaces its retries, and the seam through which tests run them.
/** Runs `retry` after `delayMs`; what it returns cancels that. */
export type RetryTimer = (retry: () => void, delayMs: number) => () => void;

export interface WebhookTiming {
  firstRetryMs: number;
  maxRetryMs: number;
  /** Tries in all, the first included. */
  attempts: number;
  /** Schedules each retry; a test passes its own to see the delays and run them at once. */
  retryTimer?: RetryTimer;
}

export const DEFAULT_TIMING: WebhookTiming = {
  firstRetryMs: 1_000,
  maxRetryMs: 60_000,
  attempts: 8,
};

/** Real timers that never keep the process alive for a retry. */
export const realRetryTimer: RetryTimer = (retry, delayMs) => {
  const timer = setTimeout(retry, delayMs).unref();
  return () => clearTimeout(timer);
};

/** Overrides the retry timing (tests). */
export const WEBHOOK_TIMING = Symbol('SLUICE_WEBHOOK_TIMING');
