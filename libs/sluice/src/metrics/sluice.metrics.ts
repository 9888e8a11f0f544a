import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Counter, Histogram, Registry } from 'prom-client';
import { PolicyBus } from '../bus/policy.bus.js';
import type { Decision } from '../engine/decision.js';
import { BlockCache } from '../penalty/block.cache.js';
import { AccessLists } from '../lists/access-lists.js';
import { loadOptionalPeer } from '../peers/optional-peer.loader.js';
import { SluiceConnection } from '../connection/sluice.connection.js';
import { outcomeOf, type DecisionOutcome } from '../stats/decision-outcome.js';

type PromClient = typeof import('prom-client');

/** The breaker's state as a number, in Prometheus and OpenTelemetry alike. */
export const BREAKER_STATES = { none: -1, closed: 0, 'half-open': 1, open: 2 } as const;

function loadPromClient(): Promise<PromClient> {
  return loadOptionalPeer('prom-client', 'SluiceModule metrics', () => import('prom-client'));
}

/**
 * Prometheus metrics of this instance, in a registry of their own (merge it with the app's with
 * `Registry.merge` to serve both on one route): decisions by policy and outcome, how long store
 * calls take, the breaker's state, the policy version applied, and block cache hits.
 */
@Injectable()
export class SluiceMetrics implements OnModuleInit {
  registry!: Registry;
  private decisions!: Counter<'policy' | 'outcome'>;
  private tierDecisions!: Counter<'policy' | 'tier' | 'outcome'>;
  private storeDuration!: Histogram;
  private cacheHits!: Counter;
  private readonly children = new Map<string, { inc(): void }>();

  constructor(
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(SluiceConnection) private readonly connection: SluiceConnection,
    @Inject(BlockCache) private readonly blocks: BlockCache,
    @Inject(AccessLists) private readonly lists: AccessLists,
  ) {}

  async onModuleInit(): Promise<void> {
    const prom = await loadPromClient();
    const registry = new prom.Registry();
    this.registry = registry;
    this.decisions = new prom.Counter({
      name: 'sluice_decisions_total',
      help: 'Decisions by policy and outcome',
      labelNames: ['policy', 'outcome'],
      registers: [registry],
    });
    // Tiers are named in policies (at most 32 each), never taken from requests: bounded labels.
    this.tierDecisions = new prom.Counter({
      name: 'sluice_tier_decisions_total',
      help: 'Decisions made at a tier, by policy, tier and outcome',
      labelNames: ['policy', 'tier', 'outcome'],
      registers: [registry],
    });
    this.storeDuration = new prom.Histogram({
      name: 'sluice_store_duration_seconds',
      help: 'How long a decision waited for its store (Redis, or memory)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    });
    this.cacheHits = new prom.Counter({
      name: 'sluice_block_cache_hits_total',
      help: 'Requests refused from the block cache, without a store call',
      registers: [registry],
    });
    const { bus, connection, blocks, lists } = this;
    // Two lists by two modes: four series at most.
    const counted = { allow: { enforce: 0, shadow: 0 }, deny: { enforce: 0, shadow: 0 } };
    new prom.Counter({
      name: 'sluice_list_matches_total',
      help: 'Calls an allow or deny list entry decided (mode enforce) or would have (mode shadow)',
      labelNames: ['list', 'mode'],
      registers: [registry],
      collect() {
        for (const list of ['allow', 'deny'] as const) {
          for (const mode of ['enforce', 'shadow'] as const) {
            const total = lists.matches[list][mode];
            if (total > counted[list][mode]) this.inc({ list, mode }, total - counted[list][mode]);
            counted[list][mode] = total;
          }
        }
      },
    });
    new prom.Gauge({
      name: 'sluice_breaker_state',
      help: 'The store breaker: 0 closed, 1 half-open, 2 open, -1 none (in-memory store)',
      registers: [registry],
      collect() {
        this.set(BREAKER_STATES[connection.breakerState]);
      },
    });
    new prom.Gauge({
      name: 'sluice_policy_version',
      help: 'The policy snapshot version this instance applies (0: code defaults)',
      registers: [registry],
      collect() {
        this.set(bus.version);
      },
    });
    new prom.Gauge({
      name: 'sluice_block_cache_size',
      help: 'Blocks this instance holds in its cache',
      registers: [registry],
      collect() {
        this.set(blocks.size);
      },
    });
  }

  /** `storeSeconds`: how long the store took; undefined when none was asked (a cached block). */
  decided(decision: Decision, storeSeconds: number | undefined): void {
    if (storeSeconds === undefined) this.cacheHits.inc();
    else this.storeDuration.observe(storeSeconds);
    for (const part of decision.policies) {
      const outcome = outcomeOf(decision, part);
      if (outcome === null) continue;
      this.child(part.policy, outcome).inc();
      if (part.tier !== undefined) this.child(part.policy, outcome, part.tier).inc();
    }
  }

  private child(policy: string, outcome: DecisionOutcome, tier?: string): { inc(): void } {
    const key = `${policy}\u0000${outcome}\u0000${tier ?? ''}`;
    let child = this.children.get(key);
    if (child === undefined) {
      child =
        tier === undefined
          ? this.decisions.labels(policy, outcome)
          : this.tierDecisions.labels(policy, tier, outcome);
      this.children.set(key, child);
    }
    return child;
  }
}
