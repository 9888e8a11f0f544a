import { identifierByKey } from '../keys/identifier.js';
import { assertKeyKind, identifierKey, normalKeyKind, toIdentifier } from '../keys/key.builder.js';
import type { PolicyRegistry } from '../policy/policy.registry.js';
import type { Policy } from '../policy/policy.types.js';

/**
 * The policies an operation decides: one name, several names, or policies already resolved from
 * the registry — the guard's path, which resolves a request's names once and passes the result
 * down (docs/architecture.md, "One request, hop by hop").
 */
export type PolicySelection = string | readonly string[] | readonly Policy[];

/**
 * What one engine call works on, resolved once (`SluiceEngine.target`): the policies selected, the
 * key kind they count under, and the identifier's key.
 */
export interface CallTarget {
  /** `<prefix>:{<keyKind>:<stored>}`: what every key of the identifier starts with. */
  key: string;
  /** The identifier as given (validated). */
  identifier: string;
  /** The identifier's part of that key: itself, or `#h:` and its digest (docs/algorithms.md). */
  stored: string;
  /** What kind of identifier it is: the policies' `key`, or the one the call named. */
  keyKind: string;
  /** The policies selected, each once. */
  policies: readonly Policy[];
}

/**
 * The selected policies (each once, all defined) and the key they count under: keyKind when
 * given, else the policies' shared `key`.
 */
export function callTarget(
  registry: PolicyRegistry,
  prefix: string,
  selection: PolicySelection,
  identifier: string,
  keyKind: string | undefined,
  storedKey?: string,
): CallTarget {
  const policies = resolveSelection(registry, selection);
  const kind = countedKeyKind(policies, keyKind);
  const named =
    storedKey === undefined ? toIdentifier(identifier) : identifierByKey(storedKey, identifier);
  return {
    key: identifierKey(prefix, kind, named),
    identifier,
    stored: named.stored,
    keyKind: kind,
    policies,
  };
}

/**
 * What the policies count by: keyKind when given, else their shared `key` (a RangeError when they
 * do not share one).
 */
export function countedKeyKind(policies: readonly Policy[], keyKind: string | undefined): string {
  const kind = keyKind === undefined ? (policies[0] as Policy).key : normalKeyKind(keyKind);
  if (keyKind === undefined && policies.some((policy) => policy.key !== kind)) {
    throw new RangeError(
      `policies: ${policies.map((p) => `${p.name} counts by ${p.key}`).join(', ')}; decide them separately or pass keyKind`,
    );
  }
  assertKeyKind(kind);
  return kind;
}

/**
 * The selected policies, each once and all defined. Names are looked up; resolved policies are
 * taken as they are, so a request's names are looked up once however far they travel.
 */
export function resolveSelection(
  registry: PolicyRegistry,
  selection: PolicySelection,
): readonly Policy[] {
  if (typeof selection === 'string') return registry.resolve([selection]);
  // One policy already resolved (a request's usual case): nothing to look up or compare.
  if (selection.length === 1 && typeof selection[0] === 'object')
    return selection as readonly Policy[];
  if (selection.length === 0) throw new RangeError('policies: name at least one policy');
  const names = (selection as readonly (string | Policy)[]).map(nameOf);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) {
    throw new RangeError(`policies: ${JSON.stringify(repeated)} is named twice`);
  }
  return isNames(selection) ? registry.resolve(selection) : selection;
}

function isNames(selection: readonly string[] | readonly Policy[]): selection is readonly string[] {
  const names = typeof selection[0] === 'string';
  if (
    (selection as readonly (string | Policy)[]).some(
      (entry) => (typeof entry === 'string') !== names,
    )
  ) {
    throw new RangeError('policies: give names or resolved policies, not both');
  }
  return names;
}

function nameOf(entry: string | Policy): string {
  return typeof entry === 'string' ? entry : entry.name;
}
