import { assertKeyKind, identifierKey, toIdentifier } from '../keys/key.builder.js';
import type { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';

/** What one engine call works on: the identifier's key and the policies named. */
export interface CallTarget {
  key: string;
  identifier: string;
  policies: Policy[];
}

/**
 * Resolves the names (each once, all defined) and the key they count under: keyKind when given,
 * else the policies' shared `key`.
 */
export function callTarget(
  registry: PolicyRegistry,
  prefix: string,
  names: string | readonly string[],
  identifier: string,
  keyKind: string | undefined,
): CallTarget {
  const list = typeof names === 'string' ? [names] : names;
  if (list.length === 0) throw new RangeError('policies: name at least one policy');
  const repeated = list.find((name, index) => list.indexOf(name) !== index);
  if (repeated !== undefined) {
    throw new RangeError(`policies: ${JSON.stringify(repeated)} is named twice`);
  }
  const policies = registry.resolve(list);
  const kind = keyKind ?? (policies[0] as Policy).key;
  if (keyKind === undefined && policies.some((policy) => policy.key !== kind)) {
    throw new RangeError(
      `policies: ${policies.map((p) => `${p.name} counts by ${p.key}`).join(', ')}; decide them separately or pass keyKind`,
    );
  }
  assertKeyKind(kind);
  return { key: identifierKey(prefix, kind, toIdentifier(identifier)), identifier, policies };
}
