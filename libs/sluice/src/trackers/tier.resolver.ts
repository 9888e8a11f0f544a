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
   * The request's own renewal day for calendar month policies (the customer's billing day,
   * 1–31), asked once per request and only for requests under such a policy; nothing: the
   * policy's `anchorDay`. An operator's override naming one wins.
   */
  anchorDay?: (
    request: unknown,
    context: ExecutionContext,
  ) => number | null | undefined | Promise<number | null | undefined>;
  /**
   * An identifier's tier, and optionally its renewal day, where there is no request to ask: an
   * operator reading or crediting a quota (`SluiceService.quota`, the admin's quota screen).
   * E.g. the API key's plan: `'pro'`, or `{ tier: 'pro', anchorDay: 15 }`.
   */
  ofIdentifier?: (identifier: string, keyKind: string) => PlanAnswer | Promise<PlanAnswer>;
}

/** What `ofIdentifier` answers: a tier's name, or a tier and a renewal day, or nothing. */
export type PlanAnswer =
  string | { tier?: string | null; anchorDay?: number | null } | null | undefined;

/** What `tiers.ofIdentifier` said of an identifier, or why it said nothing. */
export interface IdentifierPlan {
  tier?: string;
  anchorDay?: number;
  /** The lookup threw or answered late: `tiers.ofIdentifier: <why>`. */
  failure?: string;
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

  /**
   * An identifier's tier and renewal day by `ofIdentifier`, bounded (by `timeoutMs`, default the
   * resolver's) and checked as `resolve` is; `failure` says why none came when the lookup threw or
   * answered late.
   */
  async ofIdentifier(
    identifier: string,
    keyKind: string,
    timeoutMs = this.timeoutMs,
  ): Promise<IdentifierPlan> {
    const ofIdentifier = this.options?.ofIdentifier;
    if (ofIdentifier === undefined) return {};
    try {
      const answer = ofIdentifier(identifier, keyKind);
      const settled = answer instanceof Promise ? await this.bounded(answer, timeoutMs) : answer;
      if (typeof settled !== 'object' || settled === null) {
        const tier = this.checked(settled, 'tiers.ofIdentifier');
        return tier === undefined ? {} : { tier };
      }
      const plan: { tier?: string; anchorDay?: number } = {};
      const tier = this.checked(settled.tier, 'tiers.ofIdentifier');
      if (tier !== undefined) plan.tier = tier;
      const anchorDay = this.checkedDay(settled.anchorDay);
      if (anchorDay !== undefined) plan.anchorDay = anchorDay;
      return plan;
    } catch (error) {
      this.failed(error, 'tiers.ofIdentifier');
      return { failure: `tiers.ofIdentifier: ${(error as Error).message}` };
    }
  }

  /**
   * The request's renewal day by `anchorDay`, or undefined: none, or the resolver failed (one log
   * line per interval). A synchronous answer comes back as it is, not in a promise.
   */
  anchorDay(
    request: unknown,
    context: ExecutionContext,
  ): number | undefined | Promise<number | undefined> {
    const anchorDay = this.options?.anchorDay;
    if (anchorDay === undefined) return undefined;
    let answer: unknown;
    try {
      answer = anchorDay(request, context);
    } catch (error) {
      return this.failedDay(error);
    }
    if (!(answer instanceof Promise)) return this.checkedDay(answer);
    return this.bounded(answer).then(
      (late) => this.checkedDay(late),
      (error: unknown) => this.failedDay(error),
    );
  }

  private failedDay(error: unknown): undefined {
    this.logger.warn(
      `tiers.anchorDay failed, renewing on the policies' own day: ${(error as Error).message}`,
    );
    return undefined;
  }

  private checkedDay(answer: unknown): number | undefined {
    if (answer === undefined || answer === null) return undefined;
    if (typeof answer !== 'number' || !Number.isInteger(answer) || answer < 1 || answer > 31) {
      this.logger.warn(
        `tiers.anchorDay answered ${JSON.stringify(answer).slice(0, 80)}, not a day from 1 to 31: renewing on the policies' own day`,
      );
      return undefined;
    }
    return answer;
  }

  /** Says which lookup failed: `tiers.resolve` (a request's) or `tiers.ofIdentifier` (an identifier's). */
  private failed(error: unknown, lookup = 'tiers.resolve'): undefined {
    this.logger.warn(
      `${lookup} failed, deciding at the policies' own rates: ${(error as Error).message}`,
    );
    return undefined;
  }

  private checked(answer: unknown, lookup = 'tiers.resolve'): string | undefined {
    if (answer === undefined || answer === null) return undefined;
    if (typeof answer !== 'string' || !TIER_NAME.test(answer)) {
      this.logger.warn(
        `${lookup} answered ${JSON.stringify(answer).slice(0, 80)}, not a tier name: deciding at the policies' own rates`,
      );
      return undefined;
    }
    return answer;
  }

  private bounded<T>(answer: Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }
}
