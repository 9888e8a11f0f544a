import {
  PolicyBus,
  SluiceModule,
  type AlgorithmName,
  type PolicyCandidateInput,
  type PolicyInput,
} from '../../../libs/sluice/src/internals.js';
import {
  BLOCK_MS,
  POLICY_BY_IP,
  POLICY_BY_USER,
  SLIDING_LOG_LIMIT,
  SLIDING_LOG_PERIOD_MS,
  UNREACHABLE_LIMIT,
  UNREACHABLE_PERIOD_MS,
  USER_HEADER,
  USERS,
} from '../bench.constants.js';
import type { Contender } from '../contenders.js';
import type { INestApplication } from '@nestjs/common';
import type { Limiter } from './limiter.types.js';

/** The rule both routes share; the flood and exactness scenarios pass their own. */
export type SluiceRule = Omit<PolicyInput, 'name' | 'key' | 'periodMs'> & { periodMs: number };

/**
 * Room for every blocked user and the address. At the default (10 000), the 10 000 users cycled
 * in order plus the address would evict each other from the LRU cache, so every request would miss.
 */
const BLOCK_CACHE_SIZE = 2 * USERS;

export function defaultRule(contender: Contender): SluiceRule {
  const algorithm = contender.algorithm as AlgorithmName;
  if (contender.blocked) {
    return {
      algorithm,
      limit: 1,
      periodMs: BLOCK_MS,
      penalty: { afterViolations: 1, blockMs: BLOCK_MS },
    };
  }
  const rule: SluiceRule =
    algorithm === 'sliding-log'
      ? { algorithm, limit: SLIDING_LOG_LIMIT, periodMs: SLIDING_LOG_PERIOD_MS }
      : { algorithm, limit: UNREACHABLE_LIMIT, periodMs: UNREACHABLE_PERIOD_MS };
  if (contender.eventual === true) rule.consistency = 'eventual';
  // Both tiers out of reach too: what is measured is resolving and naming the tier.
  if (contender.tiers === true) {
    rule.tiers = { free: { limit: rule.limit - 1 }, pro: { limit: rule.limit } };
  }
  if (contender.candidateSample === undefined) return rule;
  return { ...rule, candidate: candidateOf(rule, contender.candidateSample) };
}

/**
 * A candidate that tightens the rule but, like it, never refuses in the bench: the common case of
 * a proposal, where both admit and both write their state.
 */
function candidateOf(rule: SluiceRule, samplePercent: number): PolicyCandidateInput {
  return {
    rules: { ...rule, limit: Math.max(1, rule.limit - 1) },
    expiresAt: Date.now() + 86_400_000,
    proposedBy: 'bench',
    proposedAt: new Date().toISOString(),
    baseVersion: 0,
    samplePercent,
  };
}

/**
 * SluiceModule with its guard global, deciding the app's @Throttle marks; its keys start with
 * `prefix`, so contenders running side by side never share state.
 */
export function sluiceLimiter(
  redisUrl: string,
  rule: SluiceRule,
  prefix: string,
  scripting: 'auto' | 'eval' = 'auto',
  batch?: { maxCalls?: number; holdMs?: number },
  contender?: Contender,
): Limiter {
  return {
    ...(contender?.denied === true ? { prepare: denyEveryone } : {}),
    metadata: {
      imports: [
        SluiceModule.forRoot({
          redis: redisUrl,
          prefix,
          scripting,
          ...(batch !== undefined ? { batch } : {}),
          global: true,
          blockCacheSize: BLOCK_CACHE_SIZE,
          // A plan read from the request as an app would from its session: no I/O.
          ...(contender?.tiers === true
            ? {
                tiers: {
                  resolve: (request: unknown) =>
                    (request as { headers: Record<string, string | undefined> }).headers[
                      'x-plan'
                    ] ?? 'pro',
                },
              }
            : {}),
          policies: [
            { ...rule, name: POLICY_BY_IP, key: 'ip' },
            { ...rule, name: POLICY_BY_USER, key: `header:${USER_HEADER}` },
          ],
        }),
      ],
    },
  };
}

/**
 * A deny list entry for every IPv4 client, every policy, applied as a published snapshot is: the
 * load's loopback address is refused from memory, before any Redis call.
 */
function denyEveryone(app: INestApplication): void {
  app.get(PolicyBus).apply({
    version: 1,
    enforcement: true,
    policies: [],
    lists: [
      {
        id: 'bench-deny',
        list: 'deny',
        kind: 'address',
        value: '0.0.0.0/0',
        keyKind: null,
        prefix: false,
        policies: null,
        mode: 'enforce',
        reason: 'bench: the denied path',
        expiresAt: null,
        createdBy: 'bench',
        createdAt: new Date().toISOString(),
      },
    ],
  });
}
