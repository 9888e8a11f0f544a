import {
  Inject,
  Injectable,
  Optional,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type {
  Attributes,
  Counter,
  Histogram,
  ObservableCallback,
  ObservableGauge,
} from '@opentelemetry/api';
import { PolicyBus } from '../bus/policy.bus.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';
import { SluiceConnection } from '../connection/sluice.connection.js';
import type { Decision } from '../engine/decision.js';
import { BlockCache } from '../penalty/block.cache.js';
import { loadOptionalPeer, loadPeerIfInstalled } from '../peers/optional-peer.loader.js';
import { outcomeOf } from '../stats/decision-outcome.js';
import { BREAKER_STATES } from './sluice.metrics.js';

type OpenTelemetryApi = typeof import('@opentelemetry/api');

const NEEDED_FOR = 'SluiceModule openTelemetry: true';
const load = (): Promise<OpenTelemetryApi> => import('@opentelemetry/api');

/**
 * Decisions as OpenTelemetry metrics and span events (docs/operations.md, "OpenTelemetry"), on
 * the app's global providers: nothing is recorded until its SDK registers one. Without
 * @opentelemetry/api installed it stays inactive, and the request path only reads `active`.
 */
@Injectable()
export class SluiceTelemetry implements OnModuleInit, OnModuleDestroy {
  /** Whether decisions are reported: the API loaded and not turned off. */
  active = false;
  /**
   * Whether decisions are counted and the store timed: only when an SDK registered a meter
   * provider before this module started. The API's meters taken from no provider stay no-ops
   * for good, so a request does not pay to feed them.
   */
  counting = false;
  private api!: OpenTelemetryApi;
  private decisions!: Counter;
  private storeDuration!: Histogram;
  private cacheHits!: Counter;
  /** The gauges' callbacks: the global meter outlives this module (a test's app, say). */
  private readonly observers: Array<[ObservableGauge, ObservableCallback]> = [];
  /** One attributes object per policy, outcome and tier: a decision allocates none. */
  private readonly attributes = new Map<string, Attributes>();

  constructor(
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(SluiceConnection) private readonly connection: SluiceConnection,
    @Inject(BlockCache) private readonly blocks: BlockCache,
    @Optional() @Inject(SLUICE_OPTIONS) private readonly options?: SluiceModuleOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    const wanted = this.options?.openTelemetry;
    if (wanted === false) return;
    const api =
      wanted === true
        ? await loadOptionalPeer('@opentelemetry/api', NEEDED_FOR, load)
        : await loadPeerIfInstalled('@opentelemetry/api', load);
    if (api === undefined) return;
    const meter = api.metrics.getMeter('@sluice/nest');
    this.counting = meter !== api.createNoopMeter();
    this.decisions = meter.createCounter('sluice.decisions', {
      description: 'Decisions by policy, outcome and, for a policy with tiers, tier',
      unit: '{decision}',
    });
    this.storeDuration = meter.createHistogram('sluice.store.duration', {
      description: 'How long a decision waited for its store (Redis, or memory)',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      },
    });
    this.cacheHits = meter.createCounter('sluice.block_cache.hits', {
      description: 'Requests refused from the block cache, without a store call',
      unit: '{request}',
    });
    const { connection, bus, blocks } = this;
    const gauge = (name: string, description: string, read: () => number, unit?: string) => {
      const observable = meter.createObservableGauge(name, { description, unit });
      const callback: ObservableCallback = (result) => result.observe(read());
      observable.addCallback(callback);
      this.observers.push([observable, callback]);
    };
    gauge(
      'sluice.breaker.state',
      'The store breaker: 0 closed, 1 half-open, 2 open, -1 none (in-memory store)',
      () => BREAKER_STATES[connection.breakerState],
    );
    gauge(
      'sluice.policy.version',
      'The policy snapshot version this instance applies (0: code defaults)',
      () => bus.version,
    );
    gauge(
      'sluice.block_cache.size',
      'Blocks this instance holds in its cache',
      () => blocks.size,
      '{block}',
    );
    this.api = api;
    this.active = true;
  }

  onModuleDestroy(): void {
    for (const [gauge, callback] of this.observers.splice(0)) gauge.removeCallback(callback);
  }

  /**
   * Counts the decision and notes it on the active span. `storeSeconds`: how long the store took;
   * undefined when none was asked (a cached block).
   */
  decided(decision: Decision, storeSeconds: number | undefined): void {
    if (this.counting) this.count(decision, storeSeconds);
    const span = this.api.trace.getActiveSpan();
    if (span === undefined || !span.isRecording()) return;
    // The deciding policy's figures; the identifier stays out: it may be a person's.
    span.addEvent('sluice.decision', {
      'sluice.allowed': decision.allowed,
      'sluice.policy': decision.policy,
      'sluice.reason': decision.reason,
      'sluice.remaining': decision.remaining,
      'sluice.retry_after_ms': decision.retryAfterMs,
      'sluice.policies': decision.policies.map((part) => part.policy),
      ...(decision.tier === undefined ? {} : { 'sluice.tier': decision.tier }),
    });
    if (!decision.allowed) span.setAttribute('sluice.refused_by', decision.policy);
  }

  private count(decision: Decision, storeSeconds: number | undefined): void {
    if (storeSeconds === undefined) this.cacheHits.add(1);
    else this.storeDuration.record(storeSeconds);
    for (const part of decision.policies) {
      const outcome = outcomeOf(decision, part);
      if (outcome !== null)
        this.decisions.add(1, this.attributesOf(part.policy, outcome, part.tier));
    }
  }

  private attributesOf(policy: string, outcome: string, tier: string | undefined): Attributes {
    const key = `${policy}\u0000${outcome}\u0000${tier ?? ''}`;
    let attributes = this.attributes.get(key);
    if (attributes === undefined) {
      // Policies and tiers are named in code or by operators, never taken from requests.
      attributes =
        tier === undefined
          ? { 'sluice.policy': policy, 'sluice.outcome': outcome }
          : { 'sluice.policy': policy, 'sluice.outcome': outcome, 'sluice.tier': tier };
      this.attributes.set(key, attributes);
    }
    return attributes;
  }
}
