import { toIdentifier, type Identifier } from './identifier.js';

const PREFIX = /^[A-Za-z0-9_.:-]{1,64}$/;
/**
 * What an identifier is: 'ip', 'user', 'header:<name>' or a tracker's name. Only 'header:' may
 * hold a colon, and a tracker may not be called 'header', so `{<keyKind>:<identifier>}` reads back
 * one way only.
 */
export const KEY_KIND = /^(ip|user|header:[A-Za-z0-9-]{1,64}|(?!header$)[a-z][A-Za-z0-9_-]{0,63})$/;

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

/**
 * A key kind as it is counted: a header's name in lower case (Node gives every header so, and
 * `header:X-API-Key` and `header:x-api-key` are one header); any other kind as it is.
 */
export function normalKeyKind(keyKind: string): string {
  return keyKind.startsWith('header:') ? keyKind.toLowerCase() : keyKind;
}

/**
 * Key kinds found valid, so a request's (its policies', a handful in any app) is not matched
 * against KEY_KIND again; bounded, as a caller may name kinds of its own.
 */
const validKeyKinds = new Set<string>();
const VALID_KEY_KINDS_KEPT = 256;

export function assertKeyKind(keyKind: string): void {
  if (validKeyKinds.has(keyKind)) return;
  if (KEY_KIND.test(keyKind)) {
    if (validKeyKinds.size < VALID_KEY_KINDS_KEPT) validKeyKinds.add(keyKind);
  } else {
    throw new RangeError(
      `keyKind: must be 'ip', 'user', 'header:<name>' or a tracker's name, got ${JSON.stringify(keyKind.slice(0, 80))}`,
    );
  }
}

export { toIdentifier };
