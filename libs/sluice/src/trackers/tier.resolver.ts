import { Logger, type ExecutionContext } from '@nestjs/common';
import { systemClock, type Clock } from '../clock/clock.js';
import { ThrottledLogger } from '../logging/throttled.logger.js';
import { TIER_NAME } from '../policy/policy.schema.js';

/**
 * The app's answer to "which plan is this request on?": a tier name (`free`, `pro`), or nothing
 * for the policies' own rates. Sync or async; it may read `request.user`, a JWT claim, or look an
 * API key up.
 */
export type TierSource = (
  request: unknown,
  context: ExecutionContext,
) => string | null | undefined | Promise<string | null | undefined>;

/** SluiceModuleOptions.tiers: where a request's tier comes from, and how long to wait for it. */
export interface TierOptions {
  /** Called at most once per request, and only for requests under a policy with tiers. */
  resolve: TierSource;
  /** ms to wait for `resolve` before deciding at the policies' own rates. Default 50. */
  timeoutMs?: number;
  /**
   * An identifier's tier where there is no request to ask: an operator reading or crediting a
   * quota (`SluiceService.quota`, the admin's quota screen). E.g. the API key's plan.
   */
  ofIdentifier?: (
    identifier: string,
    keyKind: string,
  ) => string | null | undefined | Promise<string | null | undefined>;
}

const DEFAULT_TIMEOUT_MS = 50;
const LOG_EVERY_MS = 10_000;

/**
 * Asks the app's resolver for a request's tier, bounded: a resolver that throws, answers late or
 * answers something that is not a tier name leaves the request at the policies' own rates, with
 * one log line per interval rather than a 500 (docs/guide.md, tiers).
 */
export class TierResolver {
  private readonly logger: ThrottledLogger;
  private readonly timeoutMs: number;

  constructor(
    private readonly options: TierOptions | undefined,
    clock: Clock = systemClock,
  ) {
    this.timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.logger = new ThrottledLogger(new Logger('Sluice'), LOG_EVERY_MS, clock);
  }

  /**
   * The request's tier, or undefined: none resolved, or the resolver failed. A synchronous
   * resolver's answer comes back as it is, not in a promise: the guard then awaits nothing.
   */
  resolve(
    request: unknown,
    context: ExecutionContext,
  ): string | undefined | Promise<string | undefined> {
    if (this.options === undefined) return undefined;
    let answer: unknown;
    try {
      answer = this.options.resolve(request, context);
    } catch (error) {
      return this.failed(error);
    }
    if (!(answer instanceof Promise)) return this.checked(answer);
    return this.bounded(answer).then(
      (late) => this.checked(late),
      (error: unknown) => this.failed(error),
    );
  }

  /** An identifier's tier by `ofIdentifier`, bounded and checked as `resolve` is. */
  async ofIdentifier(identifier: string, keyKind: string): Promise<string | undefined> {
    const ofIdentifier = this.options?.ofIdentifier;
    if (ofIdentifier === undefined) return undefined;
    try {
      const answer = ofIdentifier(identifier, keyKind);
      return this.checked(answer instanceof Promise ? await this.bounded(answer) : answer);
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): undefined {
    this.logger.warn(
      `tiers.resolve failed, deciding at the policies' own rates: ${(error as Error).message}`,
    );
    return undefined;
  }

  private checked(answer: unknown): string | undefined {
    if (answer === undefined || answer === null) return undefined;
    if (typeof answer !== 'string' || !TIER_NAME.test(answer)) {
      this.logger.warn(
        `tiers.resolve answered ${JSON.stringify(answer).slice(0, 80)}, not a tier name: deciding at the policies' own rates`,
      );
      return undefined;
    }
    return answer;
  }

  private bounded<T>(answer: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }
}
