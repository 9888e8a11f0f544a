import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PolicyRegistry, UnknownPolicyError } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { BlockCache } from '../penalty/block.cache.js';
import { PolicyMatcher } from '../http/policy.matcher.js';
import { guardedResponseHeaders } from '../http/rate-limit.headers.js';
import { userAgentOf } from '../http/response.access.js';
import { AccessLists } from '../lists/access-lists.js';
import type { Decision } from '../engine/decision.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { SluiceService } from './sluice.service.js';
import { refusalBody } from './too-many-requests.exception.js';

/** The parts of Fastify's request, reply and instance the gate uses. */
interface GateRequest {
  routeOptions?: { handler?: unknown };
}
interface GateReply {
  code(statusCode: number): GateReply;
  header(name: string, value: string): GateReply;
  send(payload: unknown): unknown;
}
interface FastifyHooks {
  addHook(
    name: 'onRequest',
    hook: (request: GateRequest, reply: GateReply, done: () => void) => void,
  ): unknown;
}

/** What the guard has shown of a route: the policies its handler names. */
interface GatedRoute {
  names: readonly string[];
  route: string;
}

/**
 * Refuses an identifier whose block this instance has cached, or that a deny list entry names,
 * before Nest's pipeline runs: on Fastify, an onRequest hook, so such a request costs no body
 * parsing, guard chain, exception or filter. It refuses only on routes where SluiceGuard itself
 * has refused a cached block or a denied client (so only where the guard applies, with its
 * policies), and only for `ip` and `header:` keys, which the request alone tells. The 429, its
 * headers and its counting are the guard's.
 */
@Injectable()
export class BlockGate implements OnModuleInit {
  private readonly routes = new WeakMap<object, GatedRoute>();
  private readonly matcher = new PolicyMatcher();
  private installed = false;

  constructor(
    @Inject(SLUICE_OPTIONS) private readonly options: SluiceModuleOptions,
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @Inject(BlockCache) private readonly blocks: BlockCache,
    @Inject(TrackerResolver) private readonly trackers: TrackerResolver,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
    @Inject(AccessLists) private readonly lists: AccessLists,
    @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (this.options.refuseBlockedEarly === false || adapter?.getType() !== 'fastify') return;
    const fastify = adapter.getInstance<FastifyHooks>();
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!this.refused(request, reply)) done();
    });
    this.installed = true;
  }

  /**
   * The guard refused a cached block or a denied client on this request's route: refuse the next
   * ones here.
   */
  learn(request: unknown, names: readonly string[], route: string): void {
    if (!this.installed) return;
    const handler = (request as GateRequest).routeOptions?.handler;
    if (typeof handler === 'function' && !this.routes.has(handler)) {
      this.routes.set(handler, { names, route });
    }
  }

  private refused(request: GateRequest, reply: GateReply): boolean {
    const handler = request.routeOptions?.handler;
    if ((this.blocks.size === 0 && this.lists.size === 0) || typeof handler !== 'function') {
      return false;
    }
    const gated = this.routes.get(handler);
    if (gated === undefined || !this.policies.enforcing) return false;
    const policies = this.applicable(gated.names, request);
    const client =
      this.lists.size === 0
        ? undefined
        : {
            address: this.lists.matchesAddresses ? this.trackers.clientIp(request) : undefined,
            userAgent: this.lists.matchesUserAgents ? userAgentOf(request) : undefined,
          };
    for (const policy of policies) {
      const tracked = this.trackers.trackByRequest(request, policy.key);
      if (tracked === undefined) continue;
      const { keyKind, identifier } = tracked;
      const options = { keyKind, route: gated.route };
      let decision: Decision | undefined = this.sluice.refuseFromCache(
        [policy],
        identifier,
        options,
      );
      if (decision === undefined && client !== undefined) {
        decision = this.sluice.refuseFromLists([policy], identifier, {
          keyKind,
          route: gated.route,
          client,
        });
      }
      if (decision === undefined) continue;
      reply.code(429);
      for (const [name, value] of guardedResponseHeaders(
        this.options.headers ?? 'draft',
        decision,
        policies,
      )) {
        reply.header(name, value);
      }
      reply.send(refusalBody(decision));
      return true;
    }
    return false;
  }

  /** The route's policies that apply to the request; none when one was deleted meanwhile. */
  private applicable(names: readonly string[], request: GateRequest): readonly Policy[] {
    try {
      return this.matcher.applicable(this.policies.resolveRoute(names), request);
    } catch (error) {
      if (error instanceof UnknownPolicyError) return [];
      throw error;
    }
  }
}
