export interface FailureLimits {
  /** Failures an address may make per window before it is refused without any check. */
  maxFailures: number;
  windowMs: number;
  /** Addresses tracked at most; the oldest window is forgotten first. */
  maxAddresses: number;
}

/** 20 wrong tokens or passwords a minute: plenty for typos, too few to keep argon2 busy. */
export const DEFAULT_FAILURE_LIMITS: FailureLimits = {
  maxFailures: 20,
  windowMs: 60_000,
  maxAddresses: 10_000,
};

/** Counts failed sign-ins per client address in fixed windows that start at the first failure. */
export class FailureLimiter {
  private readonly windows = new Map<string, { startedAt: number; failures: number }>();

  constructor(
    private readonly limits: FailureLimits = DEFAULT_FAILURE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long `address` must wait before its next attempt is checked; 0 when it may try now. */
  retryAfterMs(address: string): number {
    const window = this.currentWindow(address);
    if (window === undefined || window.failures < this.limits.maxFailures) return 0;
    return window.startedAt + this.limits.windowMs - this.now();
  }

  recordFailure(address: string): void {
    const window = this.currentWindow(address);
    if (window !== undefined) {
      window.failures += 1;
      return;
    }
    if (this.windows.size >= this.limits.maxAddresses) {
      const oldest = this.windows.keys().next();
      if (oldest.done !== true) this.windows.delete(oldest.value);
    }
    this.windows.set(address, { startedAt: this.now(), failures: 1 });
  }

  private currentWindow(address: string): { startedAt: number; failures: number } | undefined {
    const window = this.windows.get(address);
    if (window === undefined) return undefined;
    if (window.startedAt + this.limits.windowMs > this.now()) return window;
    this.windows.delete(address);
    return undefined;
  }
}
