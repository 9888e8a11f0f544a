import {
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  Optional,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { longSleep } from '../clock/long.sleep.js';
import { summarize, type Decision } from '../engine/decision.js';
import { InvalidIdentifierError } from '../keys/identifier.js';
import type { Policy } from '../policy/policy.types.js';
import { compileAddressList } from '../net/address-range.js';
import { TrackerResolver, type Tracked } from '../trackers/tracker.resolver.js';
import { TierResolver } from '../trackers/tier.resolver.js';
import { loadOptionalPeer } from '../peers/optional-peer.loader.js';
import { guardedResponseHeaders } from '../http/rate-limit.headers.js';
import { BlockGate } from './block.gate.js';
import { awaitOutcome, firstDecision } from './handler.outcome.js';
import { settlement, usedUnits, type Ending } from './usage.settlement.js';
import { PolicyMatcher } from '../http/policy.matcher.js';
import { onEnded, onFinished, setHeader, userAgentOf } from '../http/response.access.js';
import { AccessLists } from '../lists/access-lists.js';
import type { ConsumeOptions } from '../engine/sluice.engine.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { listsOf, policiesOf, SluiceService } from './sluice.service.js';
import { PolicyRegistry } from '../policy/policy.registry.js';
import { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';
import { TooManyRequestsException } from './too-many-requests.exception.js';
import { RouteRegistry } from './route.registry.js';
import { GraphQLRefusalException } from './graphql-refusal.exception.js';

/** The adapter's request and response: Express, Fastify, a GraphQL context's, a socket. */
export interface RequestResponse {
  /** The request the identifiers are read from. */
  req: unknown;
  /** The response the RateLimit headers are set on; undefined where there is none (a socket). */
  res: unknown;
}

/** One identifier's share of a request: the policies that count it, decided in one call. */
interface Charge extends Tracked {
  policies: Policy[];
  /** The request's tier, as the app's resolver gave it. */
  tier?: string;
  /** Its renewal day for calendar month policies, as the app's resolver gave it. */
  anchorDay?: number;
  /** What the request costs, as getCost said; absent: each policy's own cost. */
  cost?: number;
  /** The client's address and User-Agent, when list entries match them. */
  client?: ConsumeOptions['client'];
  decision?: Decision;
  /** What its store call charged, as the engine says: what a refund gives back. */
  charged?: readonly Policy[];
  /** The lease its concurrency policies hold slots under, until the request ends. */
  lease?: string;
}

/**
 * Decides each request under the policies its handler (else its class) names with `@Throttle`:
 * resolve the policies in memory, one store call per identifier, headers, then 429 or pass
 * (after the shaping delay). Subclass it and override the protected seams to adapt.
 */
@Injectable()
export class SluiceGuard implements CanActivate {
  private readonly logger = new Logger('Sluice');
  private readonly matcher = new PolicyMatcher();
  private readonly allowed: ((address: string) => boolean) | undefined;

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
  private ownTrackers?: TrackerResolver;
  private ownTiers?: TierResolver;
  private ownMarks?: ThrottleMetadataAccessor;

  constructor(
    /** The module's options: trackers, trust proxy, headers, the allow list. */
    @Inject(SLUICE_OPTIONS) protected readonly options: SluiceModuleOptions,
    /** Reads `@Throttle()` and `@SkipThrottle()`. */
    @Inject(Reflector) protected readonly reflector: Reflector,
    /** Decides and charges. */
    @Inject(SluiceService) protected readonly sluice: SluiceService,
  ) {
    const allow = options.allow?.addresses ?? [];
    this.allowed = allow.length > 0 ? compileAddressList(allow, 'allow.addresses') : undefined;
  }

  private get trackers(): TrackerResolver {
    return (
      this.sharedTrackers ??
      (this.ownTrackers ??= new TrackerResolver(
        this.options.trustProxy,
        this.options.trackers,
        this.options.ipv6Prefix,
      ))
    );
  }

  private get tiers(): TierResolver {
    return (this.ownTiers ??= new TierResolver(this.options.tiers));
  }

  private get marks(): ThrottleMetadataAccessor {
    return this.sharedMarks ?? (this.ownMarks ??= new ThrottleMetadataAccessor(this.reflector));
  }

  private get policies(): PolicyRegistry {
    return this.sharedPolicies ?? policiesOf(this.sluice);
  }

  private get lists(): AccessLists {
    return this.sharedLists ?? listsOf(this.sluice);
  }

  /** Decides the request; throws TooManyRequestsException when a policy refuses it. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.policies.enforcing || (await this.shouldSkip(context))) return true;
    const {
      names,
      route,
      tier: routeTier,
    } = this.marks.of(context.getHandler(), context.getClass());
    if (names === undefined) return true;
    const { req, res } = this.getRequestResponse(context);
    const invocation = invocationOf(context, req);
    if (invocation !== undefined && !firstDecision(invocation)) return true;
    if (this.allowed !== undefined && this.isAllowed(req)) return true;
    const policies = this.matcher.applicable(this.policies.resolve(names), req);
    if (policies.length === 0) return true;
    const charges = await this.charges(policies, req, context, route);
    // The route's own tier, else the resolver's, asked once per request and only when one of
    // its policies has tiers.
    const tiered = policies.some((policy) => policy.tiers !== null);
    let tier = tiered ? routeTier : undefined;
    if (tiered && tier === undefined && this.options.tiers !== undefined) {
      const resolved = this.tiers.resolve(req, context);
      // A synchronous resolver's answer is used as it is: no await, no turn of the event loop.
      tier = resolved instanceof Promise ? await resolved : resolved;
    }
    if (tier !== undefined) for (const charge of charges) charge.tier = tier;
    // The request's own renewal day, asked only for requests under a calendar month policy.
    if (this.options.tiers?.anchorDay !== undefined && policies.some(renewsMonthly)) {
      const resolved = this.tiers.anchorDay(req, context);
      const anchorDay = resolved instanceof Promise ? await resolved : resolved;
      if (anchorDay !== undefined) for (const charge of charges) charge.anchorDay = anchorDay;
    }
    const client = this.clientOf(req);
    if (client !== undefined) for (const charge of charges) charge.client = client;
    const cost = this.getCost(req, context);
    if (cost !== undefined) for (const charge of charges) charge.cost = cost;
    const decision = await this.decideAll(charges, route);
    this.sendHeaders(res, decision, policies);
    if (!decision.allowed) {
      if (decision.reason === 'cache-block' || decision.listEntry !== undefined) {
        this.showGate(context, req, names, route);
      }
      const admitted = charges.filter((charge) => charge.decision?.allowed);
      this.giveBack(admitted);
      for (const charge of admitted) this.release(charge);
      await this.throwThrottlingException(context, decision);
      return false;
    }
    this.giveBackOnSuccess(res, charges, context);
    if (charges.length === 1 ? endsLater(charges[0] as Charge) : charges.some(endsLater)) {
      this.whenDone(req, res, charges, context);
    }
    if (decision.delayMs > 0) await longSleep(decision.delayMs);
    return true;
  }

  /**
   * What the allow and deny lists' address and User-Agent entries match, read only when such
   * entries exist; undefined without any list entry.
   */
  private clientOf(req: unknown): ConsumeOptions['client'] {
    const lists = this.lists;
    if (lists.size === 0) return undefined;
    return {
      address: lists.matchesAddresses ? this.trackers.clientIp(req) : undefined,
      userAgent: lists.matchesUserAgents ? userAgentOf(req) : undefined,
    };
  }

  /** On the module's `allow` list: passes undecided, before any store call. */
  private isAllowed(req: unknown): boolean {
    const address = this.trackers.clientIp(req);
    return address !== undefined && (this.allowed as (address: string) => boolean)(address);
  }

  /** True to let the request through undecided. Default: `@SkipThrottle()` on handler or class. */
  protected shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(this.marks.of(context.getHandler(), context.getClass()).skip);
  }

  /**
   * The request and response of this context. HTTP on Express and Fastify; for GraphQL the
   * resolver context's `req` and `res`; for WebSocket the client, with no response.
   */
  protected getRequestResponse(context: ExecutionContext): RequestResponse {
    const type = context.getType<string>();
    if (type === 'http') {
      const http = context.switchToHttp();
      return { req: http.getRequest(), res: http.getResponse() };
    }
    if (type === 'graphql') {
      const resolverContext = context.getArgByIndex<
        { req?: unknown; res?: unknown; reply?: unknown } | undefined
      >(2);
      return { req: resolverContext?.req, res: resolverContext?.res ?? resolverContext?.reply };
    }
    return { req: context.switchToWs().getClient<unknown>(), res: undefined };
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
    return this.trackers.track(req, keyKind, context);
  }

  /**
   * Refuses the request: a 429 TooManyRequestsException; in GraphQL a GraphQLRefusalException,
   * whose `extensions` carry `code: 'TOO_MANY_REQUESTS'`, the policy and `retryAfterMs`; for a
   * WebSocket message a WsException with the 429's body, sent as an `exception` event.
   */
  protected async throwThrottlingException(
    context: ExecutionContext,
    decision: Decision,
  ): Promise<void> {
    const type = context.getType<string>();
    if (type === 'graphql') throw withoutStack(() => new GraphQLRefusalException(decision));
    const refusal = withoutStack(() => new TooManyRequestsException(decision));
    if (type !== 'ws') throw refusal;
    const { WsException } = await loadWebSockets();
    throw new WsException(refusal.getResponse());
  }

  /**
   * Lets the block gate refuse this route's cached blocks before Nest's pipeline, unless a
   * subclass may decide or refuse otherwise than this guard does.
   */
  private showGate(
    context: ExecutionContext,
    req: unknown,
    names: readonly string[],
    route: string,
  ): void {
    if (Object.getPrototypeOf(this) === SluiceGuard.prototype && context.getType() === 'http') {
      this.gate?.learn(req, names, route);
    }
  }

  /** Groups the policies by who they count, so each identifier is decided in one call. */
  private async charges(
    policies: Policy[],
    req: unknown,
    context: ExecutionContext,
    route: string,
  ): Promise<Charge[]> {
    const only = policies.length === 1 ? policies[0] : undefined;
    if (only !== undefined) {
      const { keyKind, identifier } = await this.getTracker(req, only.key, context);
      if (keyKind !== only.key && only.key === 'user') this.fellBack(route, only);
      return [{ keyKind, identifier, policies }];
    }
    const charges = new Map<string, Charge>();
    for (const policy of policies) {
      const { keyKind, identifier } = await this.getTracker(req, policy.key, context);
      if (keyKind !== policy.key && policy.key === 'user') this.fellBack(route, policy);
      const id = `${keyKind}\u0000${identifier}`;
      const charge = charges.get(id);
      if (charge === undefined) charges.set(id, { keyKind, identifier, policies: [policy] });
      else charge.policies.push(policy);
    }
    return [...charges.values()];
  }

  /**
   * A `user` policy found no user and counted the request by its address: said once per route and
   * policy, and shown on the route (GET /routes, the panel), since the usual cause is an auth
   * guard that runs after this one (docs/guide.md, "Turning the guard on").
   */
  private fellBack(route: string, policy: Policy): void {
    if (!(this.routes ?? fallbackRoutes).countedByAddress(route, policy.name)) return;
    this.logger.warn(
      `Policy "${policy.name}" (key "user") on ${route} counted a request by its client address: ` +
        'request.user was not set when SluiceGuard ran. If the route has an auth guard of its own, ' +
        "it runs after Sluice's (global guards run before controller guards): leave `global` off " +
        'and write @UseGuards(AuthGuard, SluiceGuard), or authenticate in middleware. An ' +
        'anonymous request is counted by address by design; this is said once per route.',
    );
  }

  /** Each identifier's store call, all at once; a lone identifier's decision is the request's. */
  private async decideAll(charges: Charge[], route: string): Promise<Decision> {
    const only = charges.length === 1 ? charges[0] : undefined;
    if (only !== undefined) return (only.decision = await this.decide(only, route));
    await Promise.all(
      charges.map(async (charge) => {
        charge.decision = await this.decide(charge, route);
      }),
    );
    const decisions = charges.map((charge) => charge.decision as Decision);
    return summarize(
      decisions.flatMap((each) => each.policies),
      decisions.every((each) => each.allowed),
    );
  }

  private async decide(charge: Charge, route: string): Promise<Decision> {
    try {
      // Filled field by field: a spread in a literal costs a runtime call per request.
      const options: ConsumeOptions = { keyKind: charge.keyKind, route };
      if (charge.tier !== undefined) options.tier = charge.tier;
      if (charge.anchorDay !== undefined) options.anchorDay = charge.anchorDay;
      if (charge.client !== undefined) options.client = charge.client;
      if (charge.cost !== undefined) options.cost = charge.cost;
      const { decision, charged, lease } = await this.sluice.charge(
        charge.policies,
        charge.identifier,
        options,
      );
      charge.charged = charged;
      if (lease !== undefined) charge.lease = lease;
      return decision;
    } catch (error) {
      if (error instanceof InvalidIdentifierError) {
        throw new BadRequestException(`${charge.keyKind}: ${error.message}`);
      }
      // getCost's answer does not fit a policy: the request could never pass.
      if (charge.cost !== undefined && error instanceof RangeError) {
        throw new BadRequestException(error.message);
      }
      throw error;
    }
  }

  private sendHeaders(res: unknown, decision: Decision, policies: Policy[]): void {
    const style = this.options.headers ?? 'draft';
    for (const [name, value] of guardedResponseHeaders(style, decision, policies)) {
      setHeader(res, name, value);
    }
  }

  /** Another identifier refused the request, so what these charges took is given back. */
  private giveBack(charges: Charge[], only?: (policy: Policy) => boolean): void {
    for (const charge of charges) {
      const charged = charge.charged ?? [];
      const policies = only === undefined ? charged : charged.filter(only);
      if (policies.length === 0) continue;
      this.sluice
        .refund(policies, charge.identifier, {
          keyKind: charge.keyKind,
          ...(charge.tier === undefined ? {} : { tier: charge.tier }),
          ...(charge.anchorDay === undefined ? {} : { anchorDay: charge.anchorDay }),
          ...(charge.cost === undefined ? {} : { cost: charge.cost }),
        })
        .catch((error: unknown) => this.logger.warn(`Refund failed: ${String(error)}`));
    }
  }

  /** Ends a charge's lease: the slots its concurrency policies held. */
  private release(charge: Charge): void {
    const lease = charge.lease;
    if (lease === undefined) return;
    charge.lease = undefined;
    const options: ConsumeOptions = { keyKind: charge.keyKind };
    if (charge.tier !== undefined) options.tier = charge.tier;
    // A request that took several slots (getCost) gives back as many.
    if (charge.cost !== undefined) options.cost = charge.cost;
    this.sluice
      .release(charge.charged ?? charge.policies, charge.identifier, lease, options)
      .catch((error: unknown) =>
        this.logger.warn(`Release failed, the lease lapses by itself: ${String(error)}`),
      );
  }

  /**
   * What an admitted request owes once its handler is done — its response sent, or ended after
   * its client left, a resolver's or a WebSocket handler's end: its concurrency slots back (they
   * lapse by themselves if this instance dies), and its `usage` policies' real cost settled
   * (docs/algorithms.md, "Concurrency" and "Charges settled after the response").
   */
  private whenDone(req: unknown, res: unknown, charges: Charge[], context: ExecutionContext): void {
    const done = (ending: Ending) => {
      for (const charge of charges) {
        this.release(charge);
        this.settle(charge, req, res, ending);
      }
    };
    const type = context.getType<string>();
    if (type === 'graphql' || type === 'ws') {
      const key = context.getArgByIndex<unknown>(type === 'graphql' ? 3 : 1);
      if (typeof key === 'object' && key !== null) {
        awaitOutcome(key, (failed) => done(failed ? 'failed' : 'answered'));
      }
      return;
    }
    onEnded(res, (statusCode) =>
      done(statusCode === 0 ? 'left' : statusCode >= 400 ? 'failed' : 'answered'),
    );
  }

  /** Charges (or gives back) what a charge's `usage` policies come to beyond their reservation. */
  private settle(charge: Charge, req: unknown, res: unknown, ending: Ending): void {
    for (const policy of charge.charged ?? []) {
      if (policy.usage === null) continue;
      let used: number | undefined;
      try {
        used = usedUnits(policy, req, res, this.options.usageOf);
      } catch (error) {
        this.logger.warn(`usageOf failed, the reservation stands: ${String(error)}`);
      }
      const units = settlement(policy, ending, used);
      if (units === 0) continue;
      const options: ConsumeOptions = { keyKind: charge.keyKind };
      if (charge.tier !== undefined) options.tier = charge.tier;
      if (charge.anchorDay !== undefined) options.anchorDay = charge.anchorDay;
      this.sluice
        .settle(policy.name, charge.identifier, units, options)
        .catch((error: unknown) => this.logger.warn(`Settlement failed: ${String(error)}`));
    }
  }

  /**
   * `count: "failures"`: a response below 400 gives its charge back once it is sent; in GraphQL, a
   * resolver that did not fail (its errors come back inside an HTTP 200).
   */
  private giveBackOnSuccess(res: unknown, charges: Charge[], context: ExecutionContext): void {
    const countsFailures = (policy: Policy): boolean => policy.count === 'failures';
    if (!charges.some((charge) => charge.policies.some(countsFailures))) return;
    if (context.getType<string>() === 'graphql') {
      const info = context.getArgByIndex<unknown>(3);
      if (typeof info !== 'object' || info === null) return;
      awaitOutcome(info, (failed) => {
        if (!failed) this.giveBack(charges, countsFailures);
      });
      return;
    }
    onFinished(res, (statusCode) => {
      if (statusCode < 400) this.giveBack(charges, countsFailures);
    });
  }
}

/** Where a guard built by hand, without the module's registry, remembers what it warned of. */
const fallbackRoutes = new RouteRegistry();

/** A charge owes something once its request is done: a lease to release, a cost to settle. */
const endsLater = (charge: Charge): boolean =>
  charge.lease !== undefined || (charge.charged?.some(settles) ?? false);
const settles = (policy: Policy): boolean => policy.usage !== null;
const renewsMonthly = (policy: Policy): boolean => policy.calendar?.unit === 'month';

/**
 * What identifies one invocation of a handler, the same for every guard that meets it: the HTTP
 * request, a resolver call's `info`, a WebSocket message's data object.
 */
function invocationOf(context: ExecutionContext, req: unknown): object | undefined {
  const type = context.getType<string>();
  const key: unknown =
    type === 'http'
      ? req
      : type === 'graphql'
        ? context.getArgByIndex<unknown>(3)
        : context.getArgByIndex<unknown>(1);
  return typeof key === 'object' && key !== null ? key : undefined;
}

/**
 * Builds an error without capturing a stack trace: a refusal is an answer, not a fault, and the
 * capture alone would cost more than the rest of a refusal from the block cache.
 */
function withoutStack<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function loadWebSockets(): Promise<typeof import('@nestjs/websockets')> {
  return loadOptionalPeer(
    '@nestjs/websockets',
    'SluiceGuard on WebSocket handlers',
    () => import('@nestjs/websockets'),
  );
}
