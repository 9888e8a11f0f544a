import { createHash } from 'node:crypto';

const MAX_RAW_LENGTH = 128;
const MAX_DISPLAY_LENGTH = 256;
/** Marks a hashed identifier; raw identifiers that start with it are hashed too, so none collide. */
const HASHED_MARK = '#h:';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[{}\s\u0000-\u001f\u007f-\u009f]/u;
/** A UTF-16 surrogate without its pair: it has no UTF-8 form, so distinct ones would collide. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An identifier as Sluice keeps it: its stored form and what operators read. */
export interface Identifier {
  /** What goes into Redis keys: the identifier itself, or a hash of it. */
  stored: string;
  /** What an operator reads: the original, cut to 256 characters. */
  display: string;
  /** True when `stored` is the digest (over 128 characters, braces, whitespace or controls). */
  hashed: boolean;
}

/** An identifier Sluice cannot count or name: not a string, empty, ill-formed Unicode, a bad key. */
export class InvalidIdentifierError extends Error {
  constructor(
    /** Where it came from: the field or header that carried it. */
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidIdentifierError';
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** The rule an identifier a person types (an override, a block, a reset) must follow. */
export const PLAIN_IDENTIFIER_RULE =
  'must be 1 to 256 characters of well-formed Unicode, without control characters';

/**
 * An identifier given by a person rather than read from a request: 1 to 256 characters of
 * well-formed Unicode with no control characters, so it reads the same in the audit, an export
 * and the panel. Requests may carry anything; toIdentifier hashes what does not fit a key.
 */
export function isPlainIdentifier(value: string): boolean {
  return (
    value.length >= 1 &&
    value.length <= MAX_DISPLAY_LENGTH &&
    !CONTROL.test(value) &&
    !LONE_SURROGATE.test(value)
  );
}

/**
 * Long identifiers, and those holding braces (which would break the key's hash tag), whitespace
 * or control characters, are stored as a SHA-256 digest.
 */
export function toIdentifier(raw: unknown, field = 'identifier'): Identifier {
  if (typeof raw !== 'string') {
    throw new InvalidIdentifierError(field, `must be a string, got ${typeof raw}`);
  }
  if (raw.length === 0) throw new InvalidIdentifierError(field, 'must not be empty');
  if (LONE_SURROGATE.test(raw)) {
    throw new InvalidIdentifierError(
      field,
      'must be well-formed Unicode (it holds a lone surrogate)',
    );
  }
  const display = displayForm(raw);
  const stored = storedForm(raw);
  return { stored, display, hashed: stored !== raw };
}

/**
 * The identifier's part of a Redis key, without toIdentifier's checks: the identifier itself, or
 * `#h:` and its SHA-256 digest. The block cache files blocks under it, so a block lifted by its key
 * leaves the cache too.
 */
export function storedForm(raw: string): string {
  if (raw.length <= MAX_RAW_LENGTH && !UNSAFE.test(raw) && !raw.startsWith(HASHED_MARK)) {
    return raw;
  }
  return HASHED_MARK + createHash('sha256').update(raw, 'utf8').digest('base64url');
}

/** A hashed identifier's stored form: what a penalty event's `key` holds. */
export const IDENTIFIER_KEY = /^#h:[A-Za-z0-9_-]{43}$/;
/** What {@link IDENTIFIER_KEY} requires, as an error message says it. */
export const IDENTIFIER_KEY_RULE =
  "must be the key a block's history gives: '#h:' and 43 characters";

/** What an operator reads: the identifier, cut to its first 256 characters. */
export function displayForm(raw: string): string {
  return raw.length > MAX_DISPLAY_LENGTH ? raw.slice(0, MAX_DISPLAY_LENGTH) : raw;
}

/**
 * The key a penalty event gives for an identifier cut for display (over 256 characters): the
 * only way to name such an identifier's counters without the whole of it.
 */
export function keyOfCut(raw: string): string | undefined {
  return raw.length > MAX_DISPLAY_LENGTH ? storedForm(raw) : undefined;
}

/** An identifier named by its stored key (IDENTIFIER_KEY), shown as `display`. */
export function identifierByKey(key: string, display: string, field = 'key'): Identifier {
  if (!IDENTIFIER_KEY.test(key)) throw new InvalidIdentifierError(field, IDENTIFIER_KEY_RULE);
  return { stored: key, display, hashed: true };
}
