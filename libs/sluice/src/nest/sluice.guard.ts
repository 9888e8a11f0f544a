import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { longSleep } from '../clock/long.sleep.js';
import type { Decision } from '../engine/decision.js';
import { TrackerResolver, type Tracked } from '../trackers/tracker.resolver.js';
import { AccessLists } from '../lists/access-lists.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';
import type { HoldingsContext, RequestHoldings } from '../request/request.holdings.js';
import {
  requestResponseOf,
  type RequestParts,
  type RequestResponse,
  type RequestSeams,
} from '../request/request.parts.js';
import type { RequestPlan } from '../request/request.plan.js';
import { matched } from '../request/matched.step.js';
import { watched } from '../request/watched.step.js';
import { planned } from '../request/planned.step.js';
import { charged, isDecisionLater, type DecisionLater } from '../request/charged.step.js';
import { answered } from '../request/answered.step.js';
import { BlockGate } from './block.gate.js';
import { guardParts } from './guard.parts.js';
import { refusalOf } from './refusal.factory.js';
import { CallDecider } from './call.decider.js';
import { deciderOf, listsOf, policiesOf, SluiceService } from './sluice.service.js';
import { RouteRegistry } from './route.registry.js';

export type { RequestResponse } from '../request/request.parts.js';

function rejectWith(refusal: Error): Promise<never> {
  return Promise.reject(refusal);
}

/** canActivate's answers when no step waited: settled once, shared by every request. */
const PASSED = Promise.resolve(true);
const NOT_PASSED = Promise.resolve(false);

/**
 * Decides each request under the policies its handler (else its class) names with `@Throttle`,
 * as a pipeline of named steps in one direction (docs/architecture.md, "One request, hop by
 * hop"): matched in memory → its ending watched → planned once → charged → answered. Subclass it
 * and override the protected seams to adapt.
 */
@Injectable()
export class SluiceGuard implements CanActivate {
  private readonly logger = new Logger('Sluice');

  // The module's shared readers, injected as properties so the constructor names only public
  // types; a subclass constructed by hand with the three arguments gets readers of its own, and
  // the policies its SluiceService decides by.
  @Optional() @Inject(BlockGate) private readonly gate?: BlockGate;
  @Optional() @Inject(TrackerResolver) private readonly sharedTrackers?: TrackerResolver;
  @Optional()
  @Inject(ThrottleMetadataAccessor)
  private readonly sharedMarks?: ThrottleMetadataAccessor;
  @Optional() @Inject(PolicyRegistry) private readonly sharedPolicies?: PolicyRegistry;
  @Optional() @Inject(AccessLists) private readonly sharedLists?: AccessLists;
  @Optional() @Inject(RouteRegistry) private readonly routes?: RouteRegistry;
  @Optional() @Inject(CallDecider) private readonly sharedDecider?: CallDecider;
  private ownParts?: RequestParts;
  private ownHoldings?: HoldingsContext;
  /**
   * The override points as the steps call them: each dispatches to a subclass's own. Where a
   * subclass keeps the default, the steps take its answer at once, without a promise.
   */
  private readonly seams: RequestSeams = {
    requestResponse: (context) => this.getRequestResponse(context),
    tracker:
      this.getTracker === SluiceGuard.prototype.getTracker
        ? (req, keyKind, context) => this.parts.trackers.trackNow(req, keyKind, context)
        : (req, keyKind, context) => this.getTracker(req, keyKind, context),
    cost: (req, context) => this.getCost(req, context),
  };
  /** Whether `throwThrottlingException` is this class's own, whose promise always rejects. */
  private readonly refusesByDefault =
    this.throwThrottlingException === SluiceGuard.prototype.throwThrottlingException;
  /** Whether `shouldSkip` is this class's own, which answers without a promise. */
  private readonly skipsByMarks = this.shouldSkip === SluiceGuard.prototype.shouldSkip;

  constructor(
    /** The module's options: trackers, trust proxy, headers, the allow list. */
    @Inject(SLUICE_OPTIONS) protected readonly options: SluiceModuleOptions,
    /** Reads `@Throttle()` and `@SkipThrottle()`. */
    @Inject(Reflector) protected readonly reflector: Reflector,
    /** Decides and charges. */
    @Inject(SluiceService) protected readonly sluice: SluiceService,
  ) {}

  /**
   * Decides the request; rejects with TooManyRequestsException when a policy refuses it. Not
   * async: where no step waits (a local or cached decision), the steps run at once and the
   * answer is a promise already settled.
   */
  canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      const verdict = this.runSteps(context);
      if (verdict instanceof Promise) return verdict;
      return verdict ? PASSED : NOT_PASSED;
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a step threw, passed on as it is
      return Promise.reject(error);
    }
  }

  /** The steps, each taken at once when the one before did not wait. */
  private runSteps(context: ExecutionContext): boolean | Promise<boolean> {
    if (!this.parts.policies.enforcing) return true;
    if (!this.skipsByMarks) return this.runAfterSkip(context);
    return this.skipsAt(context) || this.runUnskipped(context);
  }

  // The steps that wait are functions of their own: their closures' variables are allocated only
  // where a step waits, not on every request.

  /** A subclass's own shouldSkip, awaited as Nest would await it. */
  private runAfterSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(this.shouldSkip(context)).then(
      (skip) => skip || this.runUnskipped(context),
    );
  }

  private runUnskipped(context: ExecutionContext): boolean | Promise<boolean> {
    const parts = this.parts;
    const match = matched(context, parts, this.seams);
    if (match === undefined) return true;
    const holdings = watched(match, this.holdings);
    const decider = this.decider;
    const plan = planned(match, context, parts, this.seams, decider);
    if (plan instanceof Promise) return this.chargedLater(context, plan, holdings, decider);
    return this.runCharged(context, plan, holdings, decider);
  }

  /** A plan the app's own promise held up. */
  private chargedLater(
    context: ExecutionContext,
    plan: Promise<RequestPlan>,
    holdings: RequestHoldings,
    decider: CallDecider,
  ): Promise<boolean> {
    return plan.then((each) => this.runCharged(context, each, holdings, decider));
  }

  private runCharged(
    context: ExecutionContext,
    plan: RequestPlan,
    holdings: RequestHoldings,
    decider: CallDecider,
  ): boolean | Promise<boolean> {
    const decision = charged(plan, holdings, decider);
    if (isDecisionLater(decision)) return this.answeredLater(context, plan, decision, holdings);
    return this.runAnswered(context, plan, decision, holdings);
  }

  /** A decision the store's reply brings. */
  private answeredLater(
    context: ExecutionContext,
    plan: RequestPlan,
    decision: DecisionLater,
    holdings: RequestHoldings,
  ): boolean | Promise<boolean> {
    return decision.whenDecided((each) => this.runAnswered(context, plan, each, holdings));
  }

  private runAnswered(
    context: ExecutionContext,
    plan: RequestPlan,
    decision: Decision,
    holdings: RequestHoldings,
  ): boolean | Promise<boolean> {
    if (!answered(plan, decision, holdings, this.options.headers ?? 'draft')) {
      return this.refuse(context, plan, decision);
    }
    if (decision.delayMs > 0) return longSleep(decision.delayMs).then(() => true);
    return true;
  }

  /** True to let the request through undecided. Default: `@SkipThrottle()` on handler or class. */
  protected shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(this.skipsAt(context));
  }

  private skipsAt(context: ExecutionContext): boolean {
    return this.parts.marks.of(context.getHandler(), context.getClass()).skip;
  }

  /**
   * The request and response of this context. HTTP on Express and Fastify; for GraphQL the
   * resolver context's `req` and `res`; for WebSocket the client, with no response.
   */
  protected getRequestResponse(context: ExecutionContext): RequestResponse {
    return requestResponseOf(context);
  }

  /**
   * The units this request costs under every policy it meets, when known before it runs (a
   * GraphQL query's complexity, a batch's size): by default the module's `costOf`; undefined,
   * each policy's `cost`. A cost a policy cannot take is a 400 naming `cost`.
   */
  protected getCost(req: unknown, context: ExecutionContext): number | undefined {
    return this.options.costOf?.(req, context);
  }

  /** Who the request counts as under a policy whose `key` is keyKind. */
  protected getTracker(req: unknown, keyKind: string, context: ExecutionContext): Promise<Tracked> {
    return this.parts.trackers.track(req, keyKind, context);
  }

  /**
   * Refuses the request: a 429 TooManyRequestsException; in GraphQL a GraphQLRefusalException,
   * whose `extensions` carry `code: 'TOO_MANY_REQUESTS'`, the policy and `retryAfterMs`; for a
   * WebSocket message a WsException with the 429's body, sent as an `exception` event.
   */
  protected throwThrottlingException(context: ExecutionContext, decision: Decision): Promise<void> {
    const refusal = refusalOf(context.getType<string>(), decision);
    return refusal instanceof Promise ? refusal.then(rejectWith) : rejectWith(refusal);
  }

  /**
   * Refuses the request, after letting the block gate learn a refusal it can repeat early: the
   * refusal's promise, which rejects unless a subclass lets the request go unanswered.
   */
  private refuse(context: ExecutionContext, plan: RequestPlan, decision: Decision): Promise<false> {
    if (decision.reason === 'cache-block' || decision.listEntry !== undefined) {
      this.showGate(context, plan);
    }
    if (this.refusesByDefault) {
      // This class's own refusal always rejects: its promise is the answer, no step after it.
      const refusal = refusalOf(context.getType<string>(), decision);
      return refusal instanceof Promise ? refusal.then(rejectWith) : rejectWith(refusal);
    }
    // A subclass's own answer, awaited as Nest would await it.
    return Promise.resolve(this.throwThrottlingException(context, decision)).then(() => false);
  }

  /**
   * Lets the block gate refuse this route's cached blocks before Nest's pipeline, unless a
   * subclass may decide or refuse otherwise than this guard does.
   */
  private showGate(context: ExecutionContext, plan: RequestPlan): void {
    if (Object.getPrototypeOf(this) === SluiceGuard.prototype && context.getType() === 'http') {
      this.gate?.learn(plan.req, plan.names, plan.route);
    }
  }

  private get decider(): CallDecider {
    return this.sharedDecider ?? deciderOf(this.sluice);
  }

  /** What the steps read, gathered once: the module's readers, or this guard's own. */
  private get parts(): RequestParts {
    return (this.ownParts ??= guardParts(
      this.options,
      this.reflector,
      {
        marks: this.sharedMarks,
        policies: this.sharedPolicies ?? policiesOf(this.sluice),
        lists: this.sharedLists ?? listsOf(this.sluice),
        trackers: this.sharedTrackers,
        routes: this.routes,
      },
      this.logger,
    ));
  }

  /** How the request's holdings give back and settle: the decider, the app's usageOf. */
  private get holdings(): HoldingsContext {
    if (this.ownHoldings !== undefined) return this.ownHoldings;
    const logger = this.logger;
    return (this.ownHoldings = {
      decider: this.decider,
      usageOf: this.options.usageOf,
      warn: (message) => logger.warn(message),
    });
  }
}
