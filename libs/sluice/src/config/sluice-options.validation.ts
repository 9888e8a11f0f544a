import { assertPrefix, KEY_KIND } from '../keys/key.builder.js';
import { compileAddressList } from '../net/address-range.js';
import { assertIpv6Prefix, compileTrustProxy } from '../trackers/client-address.js';
import { assertBatchLimits } from '../store/redis.store.js';
import type { SluiceModuleOptions } from './sluice-options.interface.js';

const HEADER_STYLES = ['draft', 'legacy', 'both', false] as const;
const BUILT_IN_KEYS = new Set(['ip', 'user']);
const SCRIPTING = ['auto', 'function', 'eval'] as const;

/** Refuses module options that cannot work, naming the option. */
export function assertOptions(options: SluiceModuleOptions): void {
  const fail = (field: string, message: string): never => {
    throw new RangeError(`SluiceModule options.${field}: ${message}`);
  };
  if (options.prefix !== undefined) {
    try {
      assertPrefix(options.prefix);
    } catch (error) {
      fail('prefix', (error as Error).message.replace(/^prefix: /, ''));
    }
  }
  if (!HEADER_STYLES.includes(options.headers ?? 'draft')) {
    fail('headers', `must be 'draft', 'legacy', 'both' or false, got ${String(options.headers)}`);
  }
  const timeout = options.timeoutMs;
  if (
    timeout !== undefined &&
    (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > 60_000)
  ) {
    fail('timeoutMs', `must be an integer from 1 to 60000, got ${String(timeout)}`);
  }
  if (!SCRIPTING.includes(options.scripting ?? 'auto')) {
    fail('scripting', `must be 'auto', 'function' or 'eval', got ${String(options.scripting)}`);
  }
  if (options.ipv6Prefix !== undefined) {
    try {
      assertIpv6Prefix(options.ipv6Prefix, 'ipv6Prefix');
    } catch (error) {
      fail('ipv6Prefix', (error as Error).message.replace(/^ipv6Prefix: /, ''));
    }
  }
  if (options.tiers !== undefined) {
    if (typeof options.tiers?.resolve !== 'function') {
      fail('tiers.resolve', 'must be a function of the request and the execution context');
    }
    const wait = options.tiers.timeoutMs;
    if (wait !== undefined && (!Number.isSafeInteger(wait) || wait < 1 || wait > 10_000)) {
      fail('tiers.timeoutMs', `must be an integer from 1 to 10000, got ${String(wait)}`);
    }
    for (const hook of ['anchorDay', 'ofIdentifier'] as const) {
      const given: unknown = options.tiers[hook];
      if (given !== undefined && typeof given !== 'function') {
        fail(`tiers.${hook}`, 'must be a function');
      }
    }
  }
  if (options.openTelemetry !== undefined && typeof options.openTelemetry !== 'boolean') {
    fail('openTelemetry', `must be true or false, got ${String(options.openTelemetry)}`);
  }
  if (options.costOf !== undefined && typeof options.costOf !== 'function') {
    fail('costOf', 'must be a function of the request and the execution context');
  }
  if (options.usageOf !== undefined && typeof options.usageOf !== 'function') {
    fail('usageOf', 'must be a function of the policy, the request and the response');
  }
  const size = options.blockCacheSize;
  if (size !== undefined && (!Number.isSafeInteger(size) || size < 0 || size > 10_000_000)) {
    fail('blockCacheSize', `must be an integer from 0 to 10000000, got ${String(size)}`);
  }
  assertTrafficProfile(options.trafficProfile, fail);
  const early = options.refuseBlockedEarly;
  if (early !== undefined && typeof early !== 'boolean') {
    fail('refuseBlockedEarly', `must be true or false, got ${JSON.stringify(early)}`);
  }
  assertBatchLimits(options.batch, 'SluiceModule options.batch');
  const { failureThreshold, cooldownMs } = options.breaker ?? {};
  if (
    failureThreshold !== undefined &&
    (!Number.isSafeInteger(failureThreshold) || failureThreshold < 1 || failureThreshold > 10_000)
  ) {
    fail(
      'breaker.failureThreshold',
      `must be an integer from 1 to 10000, got ${String(failureThreshold)}`,
    );
  }
  if (
    cooldownMs !== undefined &&
    (!Number.isSafeInteger(cooldownMs) || cooldownMs < 1 || cooldownMs > 600_000)
  ) {
    fail('breaker.cooldownMs', `must be an integer from 1 to 600000, got ${String(cooldownMs)}`);
  }
  for (const field of ['syncIntervalMs', 'heartbeatIntervalMs'] as const) {
    const interval = options[field];
    if (
      interval !== undefined &&
      (!Number.isSafeInteger(interval) || interval < 10 || interval > 300_000)
    ) {
      fail(field, `must be an integer from 10 to 300000, got ${String(interval)}`);
    }
  }
  if (typeof options.redis === 'string' && !/^rediss?:\/\//.test(options.redis)) {
    fail('redis', 'a URL must start with redis:// or rediss://');
  }
  const names = (options.policies ?? []).map((policy) => (policy as { name?: unknown }).name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) fail('policies', `${JSON.stringify(repeated)} is defined twice`);
  for (const [name, tracker] of Object.entries(options.trackers ?? {})) {
    if (!KEY_KIND.test(name) || BUILT_IN_KEYS.has(name) || name.startsWith('header:')) {
      fail(
        `trackers.${name}`,
        "a tracker's name starts with a lower-case letter, then up to 63 letters, digits, '_' or '-', and is not 'ip', 'user' or 'header'",
      );
    }
    if (typeof tracker !== 'function') fail(`trackers.${name}`, 'must be a function');
  }
  if (options.allow !== undefined) {
    if (typeof options.allow !== 'object' || options.allow === null) {
      fail('allow', 'must be an object: { addresses }');
    }
    const unknown = Object.keys(options.allow).filter((key) => key !== 'addresses');
    if (unknown.length > 0) fail(`allow.${unknown[0]}`, 'is not an option');
    try {
      compileAddressList(options.allow.addresses ?? [], 'allow.addresses');
    } catch (error) {
      throw new RangeError(`SluiceModule options.${(error as Error).message}`, { cause: error });
    }
  }
  try {
    compileTrustProxy(options.trustProxy);
  } catch (error) {
    fail('trustProxy', (error as Error).message.replace(/^trustProxy: /, ''));
  }
}

/** Each `trafficProfile` field and the whole numbers it takes. */
const TRAFFIC_PROFILE_RANGES = {
  retentionHours: [1, 2160],
  sampleBound: [100, 100_000],
  replayRecords: [0, 1_000_000],
} as const;

function assertTrafficProfile(
  profile: SluiceModuleOptions['trafficProfile'],
  fail: (field: string, message: string) => never,
): void {
  if (profile === undefined || profile === false) return;
  if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) {
    fail('trafficProfile', `must be false or an object, got ${JSON.stringify(profile)}`);
  }
  for (const [field, value] of Object.entries(profile)) {
    const range = TRAFFIC_PROFILE_RANGES[field as keyof typeof TRAFFIC_PROFILE_RANGES];
    if (range === undefined) {
      fail(
        `trafficProfile.${field}`,
        'is not an option: retentionHours, sampleBound or replayRecords',
      );
    }
    const [min, max] = range;
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min || value > max)) {
      fail(
        `trafficProfile.${field}`,
        `must be an integer from ${min} to ${max}, got ${String(value)}`,
      );
    }
  }
}
