import { toIdentifier, type Identifier } from './identifier.js';

const PREFIX = /^[A-Za-z0-9_.:-]{1,64}$/;
const KEY_KIND = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * `<prefix>:{<keyKind>:<identifier>}`: the part every key of one identifier starts with. The
 * braces make it the Redis Cluster hash tag, so all of an identifier's keys share one slot.
 */
export function identifierKey(prefix: string, keyKind: string, identifier: Identifier): string {
  return `${prefix}:{${keyKind}:${identifier.stored}}`;
}

export function assertPrefix(prefix: string): void {
  if (!PREFIX.test(prefix)) {
    throw new RangeError(
      `prefix: must be 1-64 characters of letters, digits, '_', '.', ':' or '-', got ${JSON.stringify(prefix)}`,
    );
  }
}

export function assertKeyKind(keyKind: string): void {
  if (!KEY_KIND.test(keyKind)) {
    throw new RangeError(
      `keyKind: must be 1-64 characters of letters, digits, '_', '.', ':' or '-', got ${JSON.stringify(keyKind)}`,
    );
  }
}

export { toIdentifier };
