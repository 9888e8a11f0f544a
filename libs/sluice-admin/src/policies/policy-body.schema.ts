import {
  OWN_POLICY_PREFIX,
  parsePolicy,
  policyInputSchema,
  POLICY_NAME,
  PolicyValidationError,
  type Policy,
} from '@sluice/nest/internals';
import { z } from 'zod';
import type {
  ChangeNoteRequest,
  PolicyWriteQuery,
  PolicyWriteRequest,
} from '../common/admin-api.types.js';
import { freeText } from '../common/text.schema.js';
import { InvalidRequestException, type FieldIssue } from '../common/invalid-request.exception.js';

const NAME_RULE =
  "must be 1-64 characters of letters, digits, '_', '.' or '-', starting with a letter or digit";
const VERSION_RULE = 'must be an integer of 0 or more: the version you read (0 to create)';

const version = z
  .number({ error: VERSION_RULE })
  .int({ error: VERSION_RULE })
  .min(0, { error: VERSION_RULE })
  .max(Number.MAX_SAFE_INTEGER, { error: VERSION_RULE });
const comment = freeText(500).nullable();

/** `{ version?, comment? }`: the staleness check and note a delete or restore may carry. */
export const changeNoteSchema = z.strictObject({
  version: version.optional(),
  comment: comment.optional(),
}) satisfies z.ZodType<ChangeNoteRequest>;

/**
 * PUT /policies/:name's body as the API description states it: a policy (its name optional, from
 * the path), the version read and a note. parsePolicyWrite checks it, naming each bad field.
 */
export const policyWriteSchema = policyInputSchema.omit({ candidate: true }).extend({
  name: policyInputSchema.shape.name.optional(),
  version,
  comment: comment.optional(),
}) satisfies z.ZodType<PolicyWriteRequest>;

/**
 * Not policy rules: the request's own version and comment, and the fields the server owns, which
 * a policy read back as is carries and which are ignored.
 */
const NOT_RULES = new Set([
  'version',
  'comment',
  'source',
  'updatedAt',
  'updatedBy',
  'routes',
  'codeDefault',
  'candidate',
  'drift',
]);

export interface PolicyWrite {
  /** Validated, with every default filled in; version and bookkeeping are set when stored. */
  policy: Policy;
  /** The version the writer read; 0 creates. */
  expectedVersion: number;
  comment: string | null;
}

export interface ChangeNote {
  expectedVersion: number | undefined;
  comment: string | null;
}

/** 400 naming `name` unless the path's policy name is one a policy may have. */
export function assertPolicyName(name: string): void {
  if (!POLICY_NAME.test(name)) {
    throw new InvalidRequestException([{ field: 'name', message: NAME_RULE }]);
  }
}

/**
 * Names the admin keeps for its own limits (the sign-in limits, `sluice-admin.*`): readable like
 * any policy, never written. An admin who could raise them could try tokens without limit.
 */
export const RESERVED_POLICY_PREFIX = OWN_POLICY_PREFIX;

/** assertPolicyName, and refuses the reserved names: for every write. */
export function assertWritablePolicyName(name: string): void {
  assertPolicyName(name);
  if (name.startsWith(RESERVED_POLICY_PREFIX)) {
    throw new InvalidRequestException([
      {
        field: 'name',
        message: `"${RESERVED_POLICY_PREFIX}*" names the admin's own sign-in limits, which cannot be changed`,
      },
    ]);
  }
}

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * PUT /policies/:name: a policy plus `version` and an optional `comment`, all checked at once.
 * `knowsKey` says whether this application counts by the policy's key: every instance refuses a
 * snapshot holding a policy keyed by a tracker it does not register.
 */
export function parsePolicyWrite(
  name: string,
  body: unknown,
  knowsKey: (key: string) => boolean,
): PolicyWrite {
  assertWritablePolicyName(name);
  if (!isRecord(body)) {
    throw new InvalidRequestException([
      { field: '(body)', message: 'must be a JSON object: a policy with the version you read' },
    ]);
  }
  const issues: FieldIssue[] = [];
  // fromEntries defines each field as its own property: a "__proto__" key stays a field (and is
  // refused as unknown) instead of replacing the object's prototype.
  const rules: Record<string, unknown> = Object.fromEntries(
    Object.entries(body).filter(([field]) => !NOT_RULES.has(field)),
  );
  if (rules.name !== undefined && rules.name !== name) {
    issues.push({ field: 'name', message: `must be "${name}", the name in the path, or absent` });
  }
  const note = changeNoteSchema.safeParse({ version: body.version, comment: body.comment });
  if (!note.success) {
    issues.push(
      ...note.error.issues.map((issue) => ({
        field: issue.path.map(String).join('.'),
        message: issue.message,
      })),
    );
  }
  let policy: Policy | undefined;
  try {
    policy = parsePolicy({ ...rules, name, source: 'admin' });
  } catch (error) {
    if (!(error instanceof PolicyValidationError)) throw error;
    issues.push(...error.issues);
  }
  if (policy !== undefined && !knowsKey(policy.key)) {
    issues.push({
      field: 'key',
      message: `counts by the tracker "${policy.key}", which this application does not register`,
    });
  }
  if (issues.length > 0 || policy === undefined || !note.success) {
    throw new InvalidRequestException(issues);
  }
  return {
    policy,
    expectedVersion: note.data.version ?? 0,
    comment: note.data.comment ?? null,
  };
}

/** The body of a delete or restore, as ValidBody parsed it: absent, no staleness check. */
export type ChangeNoteBody = z.output<typeof changeNoteSchema>;

export function toChangeNote(body: ChangeNoteBody): ChangeNote {
  return { expectedVersion: body.version, comment: body.comment ?? null };
}

/** PUT /policies/:name's query: `confirm=reset` for a change that resets counts. */
export const policyWriteQuerySchema = z.strictObject({
  confirm: z.literal('reset', { error: "must be 'reset'" }).optional(),
}) satisfies z.ZodType<PolicyWriteQuery>;
