import { Inject, Injectable } from '@nestjs/common';
import { PolicyBus } from '../bus/policy.bus.js';
import type { Decision } from '../engine/decision.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import type { ConsumeOptions } from '../engine/engine.types.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import { MemoryStore } from '../store/memory.store.js';
import { SLUICE_OPTIONS } from '../config/sluice.tokens.js';
import type { SluiceModuleOptions } from '../config/sluice-options.interface.js';

const share = (amount: number, instances: number): number =>
  Math.max(1, Math.ceil(amount / instances));

/**
 * onStoreError 'local': while Redis is away, a policy is decided in this process with its limit
 * (and burst, and override limits) divided among the instances that were alive at the last
 * heartbeat, so together they admit about what Redis would have.
 */
@Injectable()
export class LocalFallback {
  private readonly engine: SluiceEngine;
  /** The split policy last set for each policy object and instance count. */
  private readonly splits = new WeakMap<Policy, { instances: number; local: Policy }>();

  constructor(
    @Inject(SLUICE_OPTIONS) options: SluiceModuleOptions,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
  ) {
    this.engine = new SluiceEngine({ store: new MemoryStore(), prefix: options.prefix });
  }

  consume(
    policies: readonly Policy[],
    identifier: string,
    options: ConsumeOptions,
  ): Promise<Decision> {
    return this.engine.consume(this.shares(policies), identifier, options);
  }

  /** Gives back what consume charged here: a request that turned out not to count. */
  refund(policies: readonly Policy[], identifier: string, options: ConsumeOptions): Promise<void> {
    return this.engine.refund(this.shares(policies), identifier, options);
  }

  private shares(policies: readonly Policy[]): Policy[] {
    const instances = this.bus.liveInstances;
    return policies.map((policy) => {
      const known = this.splits.get(policy);
      if (known?.instances === instances) return known.local;
      const local = split(policy, instances);
      this.splits.set(policy, { instances, local });
      return local;
    });
  }
}

/** The policy's share for one of `instances`; the whole policy when a share would not be valid. */
function split(policy: Policy, instances: number): Policy {
  if (instances <= 1) return policy;
  const floor = policy.cost;
  try {
    return parsePolicy({
      ...policy,
      limit: Math.max(floor, share(policy.limit, instances)),
      burst: policy.burst === null ? null : Math.max(floor, share(policy.burst, instances)),
      overrides: policy.overrides.map(({ limit, tier, ...override }) =>
        limit === null
          ? { ...override, ...(tier === null ? {} : { tier }) }
          : { ...override, limit: limit === 0 ? 0 : share(limit, instances) },
      ),
      tiers: sharedTiers(policy.tiers, instances, floor),
    });
  } catch {
    return policy;
  }
}

/** Each tier's rate divided as the policy's is, so a tier keeps its share while Redis is away. */
function sharedTiers(tiers: Policy['tiers'], instances: number, floor: number): Policy['tiers'] {
  if (tiers === null) return null;
  return Object.fromEntries(
    Object.entries(tiers).map(([name, tier]) => [
      name,
      {
        limit: Math.max(floor, share(tier.limit, instances)),
        burst: tier.burst === null ? null : Math.max(floor, share(tier.burst, instances)),
        maxDelayMs: tier.maxDelayMs,
      },
    ]),
  );
}
