import { z } from 'zod';
import { isPlainIdentifier, PLAIN_IDENTIFIER_RULE } from '../keys/identifier.js';
import { KEY_KIND, normalKeyKind } from '../keys/key.builder.js';
import { isAddressRange } from '../net/address-range.js';
import { POLICY_NAME } from '../policy/policy.schema.js';
import { isUserAgentPattern } from '../policy/user-agent.pattern.js';

/**
 * Entries the allow and deny lists hold together, at most: each instance checks a request against
 * them in memory, so their number stays small (docs/guide.md, allow and deny lists).
 */
export const MAX_LIST_ENTRIES = 1000;
/** Policies one entry may name at most; more read better as a global entry. */
export const MAX_ENTRY_POLICIES = 64;

/** Which list: `deny` refuses before any store call, `allow` skips the policies it names. */
export type ListName = 'allow' | 'deny';
/** What an entry matches: the client's address or range, its User-Agent, or an identifier. */
export type ListMatchKind = 'address' | 'userAgent' | 'identifier';

/** An entry as an operator writes it (POST /lists). */
export interface ListEntryInput {
  /** Which list it is on. */
  list: ListName;
  /** What it matches. */
  kind: ListMatchKind;
  /**
   * An IP address or CIDR range (`address`), an RE2 pattern of at most 256 characters
   * (`userAgent`, case-insensitive, found anywhere), or an identifier (`identifier`).
   */
  value: string;
  /** With `kind: 'identifier'`: the kind of identifier it names (`ip`, `user`, `header:x-api-key` …). */
  keyKind?: string | null;
  /** With `kind: 'identifier'`: true to match every identifier that starts with `value`. */
  prefix?: boolean;
  /** The policies it applies to; null or absent: every policy. */
  policies?: string[] | null;
  /** `enforce` acts; `shadow` only counts what it would have done. Default `enforce`. */
  mode?: 'enforce' | 'shadow';
  /** Why it is there, as the panel and the audit show it. */
  reason: string;
  /** When it stops applying (ISO 8601 with offset), or null: never. */
  expiresAt?: string | null;
}

/** An entry as the admin stores and publishes it. */
export interface ListEntry {
  /** Its id, given by the admin. */
  id: string;
  /** Which list it is on. */
  list: ListName;
  /** What it matches. */
  kind: ListMatchKind;
  /** The address or range, the User-Agent pattern, or the identifier. */
  value: string;
  /** The kind of identifier an `identifier` entry names; null for the other kinds. */
  keyKind: string | null;
  /** An `identifier` entry that matches every identifier starting with `value`. */
  prefix: boolean;
  /** The policies it applies to; null: every policy. */
  policies: string[] | null;
  /** `enforce` acts; `shadow` only counts. */
  mode: 'enforce' | 'shadow';
  /** Why it is there. */
  reason: string;
  /** ISO 8601, or null: never. */
  expiresAt: string | null;
  /** Who added it. */
  createdBy: string;
  /** When it was added, ISO 8601. */
  createdAt: string;
}

const KEY_KIND_RULE = "must be 'ip', 'user', 'header:<name>' or a tracker's name";
const USER_AGENT_RULE =
  'must be a regular expression RE2 accepts (no lookaround or backreferences), of at most 256 characters';

const entryFields = {
  list: z.enum(['allow', 'deny'], { error: "must be 'allow' or 'deny'" }),
  kind: z.enum(['address', 'userAgent', 'identifier'], {
    error: "must be 'address', 'userAgent' or 'identifier'",
  }),
  value: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .refine((value) => !value.includes('\u0000'), { error: 'must not contain NUL' }),
  keyKind: z
    .string({ error: 'must be a string' })
    .regex(KEY_KIND, { error: KEY_KIND_RULE })
    .transform(normalKeyKind),
  prefix: z.boolean({ error: 'must be true or false' }),
  policies: z
    .array(
      z.string({ error: 'must be a string' }).regex(POLICY_NAME, { error: 'is not a policy name' }),
      {
        error: 'must be an array of policy names, or null for every policy',
      },
    )
    .min(1, { error: 'must name at least one policy, or be null for every policy' })
    .max(MAX_ENTRY_POLICIES, { error: `must name at most ${MAX_ENTRY_POLICIES} policies` }),
  mode: z.enum(['enforce', 'shadow'], { error: "must be 'enforce' or 'shadow'" }),
  reason: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must say why the entry is there' })
    .max(500, { error: 'must be at most 500 characters' })
    .refine((reason) => !reason.includes('\u0000'), { error: 'must not contain NUL' }),
  expiresAt: z.iso.datetime({
    offset: true,
    error: 'must be an ISO 8601 time with its offset, or null',
  }),
};

/** The checks that read several fields: the value by kind, and what only identifiers take. */
function checkValue(
  entry: { kind: ListMatchKind; value: string; keyKind?: string | null; prefix?: boolean },
  context: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  if (entry.kind === 'address' && !isAddressRange(entry.value)) {
    issue('value', 'must be an IP address or a CIDR range (203.0.113.0/24, 2001:db8::/32)');
  }
  if (
    entry.kind === 'userAgent' &&
    (entry.value.length > 256 || !isUserAgentPattern(entry.value))
  ) {
    issue('value', USER_AGENT_RULE);
  }
  if (entry.kind === 'identifier') {
    if (!isPlainIdentifier(entry.value)) issue('value', PLAIN_IDENTIFIER_RULE);
    if (entry.keyKind === undefined || entry.keyKind === null) {
      issue('keyKind', 'must name the kind of identifier the entry is for');
    }
    return;
  }
  if (entry.keyKind !== undefined && entry.keyKind !== null) {
    issue('keyKind', 'applies to identifier entries only; leave it out for this kind');
  }
  if (entry.prefix === true) issue('prefix', 'applies to identifier entries only');
}

/** POST /lists's body, checked field by field. */
export const listEntryInputSchema = z
  .strictObject({
    list: entryFields.list,
    kind: entryFields.kind,
    value: entryFields.value,
    keyKind: entryFields.keyKind.nullable().optional(),
    prefix: entryFields.prefix.optional(),
    policies: entryFields.policies.nullable().optional(),
    mode: entryFields.mode.optional(),
    reason: entryFields.reason,
    expiresAt: entryFields.expiresAt.nullable().optional(),
  })
  .superRefine(checkValue) satisfies z.ZodType<ListEntryInput>;

/** A published entry, as each instance reads it back before applying it. */
export const listEntrySchema = z
  .strictObject({
    id: z.string({ error: 'must be a string' }).min(1).max(64),
    list: entryFields.list,
    kind: entryFields.kind,
    value: entryFields.value,
    keyKind: entryFields.keyKind.nullable(),
    prefix: entryFields.prefix,
    policies: entryFields.policies.nullable(),
    mode: entryFields.mode,
    reason: entryFields.reason,
    expiresAt: entryFields.expiresAt.nullable(),
    createdBy: z.string({ error: 'must be a string' }),
    createdAt: z.string({ error: 'must be a string' }),
  })
  .superRefine(checkValue) satisfies z.ZodType<ListEntry>;
