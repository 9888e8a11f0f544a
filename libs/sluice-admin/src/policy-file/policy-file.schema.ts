import {
  listEntryInputSchema,
  MAX_LIST_ENTRIES,
  parsePolicy,
  policyInputSchema,
  POLICY_NAME,
  PolicyValidationError,
  type ListEntryInput,
  type Policy,
} from '@sluice/nest/internals';
import { z } from 'zod';
import { fieldIssues, type FieldIssue } from '../common/invalid-request.exception.js';
import type { PolicyFileDocument } from '../common/policy-file.types.js';
import { DEFAULT_SAMPLE_PERCENT, MAX_CANDIDATE_MS } from '../policies/candidate-body.schema.js';
import { isRecord, RESERVED_POLICY_PREFIX } from '../policies/policy-body.schema.js';

/** The most policies one file may hold: each is parsed and compared on every diff and apply. */
export const MAX_FILE_POLICIES = 2000;

const NAME_RULE =
  "must be 1-64 characters of letters, digits, '_', '.' or '-', starting with a letter or digit";

/** A policy's rules in a file: what PUT /policies/:name takes, without name and bookkeeping. */
const rulesSchema = policyInputSchema.omit({
  name: true,
  version: true,
  source: true,
  updatedAt: true,
  updatedBy: true,
  candidate: true,
});

const candidateSchema = z.strictObject({
  rules: rulesSchema,
  expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time with an offset' }),
  samplePercent: z.number().int().min(1).max(100).optional(),
});

const policyName = z.string().regex(POLICY_NAME, { error: NAME_RULE });

/**
 * The file as editors check it: published as policy-file.schema.json (scripts/write-policy-file-schema.ts).
 * The admin checks each policy with parsePolicy, which adds the checks across fields.
 */
export const policyFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    sluice: z.literal(1, { error: 'must be 1, the file format' }),
    version: z
      .number({ error: 'must be the version the file was exported at' })
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER),
    policies: z.record(policyName, rulesSchema),
    lists: z.array(listEntryInputSchema).max(MAX_LIST_ENTRIES).optional(),
    candidates: z.record(policyName, candidateSchema).optional(),
  })
  .meta({
    title: 'Sluice policy file',
    description:
      'Policies as code for the Sluice admin: npx sluice export, diff and apply (docs/operations.md, "Policies as code").',
  }) satisfies z.ZodType<PolicyFileDocument>;

/** The document's top level: the policies, entries and candidates are checked one by one. */
const shapeSchema = z.strictObject({
  $schema: z.string().optional(),
  sluice: policyFileSchema.shape.sluice,
  version: policyFileSchema.shape.version,
  policies: z.record(z.string(), z.unknown()),
  lists: z.array(z.unknown()).max(MAX_LIST_ENTRIES).optional(),
  candidates: z.record(z.string(), z.unknown()).optional(),
});

export interface FileCandidate {
  /** Validated and named as its policy. */
  policy: Policy;
  expiresAt: number;
  samplePercent: number;
}

/** A document checked through: every policy parsed with its defaults. */
export interface ParsedPolicyFile {
  version: number;
  policies: Map<string, Policy>;
  /** null: the file does not manage the lists. */
  lists: ListEntryInput[] | null;
  /** null: the file does not manage candidates. */
  candidates: Map<string, FileCandidate> | null;
}

/** zod's issues, one per field (fieldIssues), under `prefix`: `lists.2.value`. */
function issuesOf(error: z.ZodError, prefix: string): FieldIssue[] {
  return fieldIssues(error, prefix).map((issue) => ({
    ...issue,
    field: prefix === '' || issue.field === prefix ? issue.field : `${prefix}.${issue.field}`,
  }));
}

/** The rules as parsePolicy takes them: named, with fields that are not rules refused. */
function parseRules(
  name: string,
  rules: unknown,
  field: string,
  issues: FieldIssue[],
): Policy | undefined {
  if (!isRecord(rules)) {
    issues.push({ field, message: "must be an object: the policy's rules" });
    return undefined;
  }
  const misplaced = ['name', 'version', 'source', 'updatedAt', 'updatedBy', 'candidate'].filter(
    (key) => Object.hasOwn(rules, key),
  );
  for (const key of misplaced) {
    issues.push({ field: `${field}.${key}`, message: 'is not a rule a policy file sets' });
  }
  try {
    return parsePolicy({ ...rules, name, source: 'admin' });
  } catch (error) {
    if (!(error instanceof PolicyValidationError)) throw error;
    issues.push(...error.issues.map((issue) => ({ ...issue, field: `${field}.${issue.field}` })));
    return undefined;
  }
}

/**
 * Checks a document through and answers it parsed, or every issue at once, each naming its field
 * (`policies.api.limit`, `lists.2.value`). `now` dates candidates' expiries; `knowsKey` says
 * whether this application counts by a tracker.
 */
export function parsePolicyFile(
  body: unknown,
  now: number,
  knowsKey: (key: string) => boolean,
): { file: ParsedPolicyFile; issues: [] } | { file: null; issues: FieldIssue[] } {
  const shape = shapeSchema.safeParse(body);
  if (!shape.success) return { file: null, issues: issuesOf(shape.error, '') };
  // A record's parse leaves out a "__proto__" key: the names are read from the document as sent.
  const sent = body as { policies: object; candidates?: object };
  const unnamed = [
    ...Object.keys(sent.policies).map((name) => ['policies', name] as const),
    ...Object.keys(sent.candidates ?? {}).map((name) => ['candidates', name] as const),
  ].filter(([, name]) => !POLICY_NAME.test(name));
  if (unnamed.length > 0) {
    return {
      file: null,
      issues: unnamed.map(([section, name]) => ({
        field: `${section}.${name}`,
        message: `is not a policy name: ${NAME_RULE}`,
      })),
    };
  }
  const document = shape.data;
  const issues: FieldIssue[] = [];
  const names = Object.keys(document.policies);
  if (names.length > MAX_FILE_POLICIES) {
    issues.push({ field: 'policies', message: `must hold at most ${MAX_FILE_POLICIES} policies` });
  }
  const policies = new Map<string, Policy>();
  for (const name of names.sort()) {
    const field = `policies.${name}`;
    if (!POLICY_NAME.test(name)) {
      issues.push({ field, message: `is not a policy name: ${NAME_RULE}` });
      continue;
    }
    if (name.startsWith(RESERVED_POLICY_PREFIX)) {
      issues.push({
        field,
        message: `"${RESERVED_POLICY_PREFIX}*" names the admin's own sign-in limits, which a file cannot set`,
      });
      continue;
    }
    const policy = parseRules(name, document.policies[name], field, issues);
    if (policy === undefined) continue;
    if (!knowsKey(policy.key)) {
      issues.push({
        field: `${field}.key`,
        message: `counts by the tracker "${policy.key}", which this application does not register`,
      });
      continue;
    }
    policies.set(name, policy);
  }
  const lists = document.lists === undefined ? null : parseLists(document.lists, now, issues);
  const candidates =
    document.candidates === undefined
      ? null
      : parseCandidates(document.candidates, names, now, knowsKey, issues);
  if (issues.length > 0) return { file: null, issues };
  return { file: { version: document.version, policies, lists, candidates }, issues: [] };
}

/** What makes two entries the same entry: changing anything else updates it. */
export function listEntryIdentity(
  entry: Pick<ListEntryInput, 'list' | 'kind' | 'value' | 'keyKind' | 'prefix'>,
): string {
  return JSON.stringify([
    entry.list,
    entry.kind,
    entry.value,
    entry.keyKind ?? null,
    entry.prefix ?? false,
  ]);
}

function parseLists(entries: unknown[], now: number, issues: FieldIssue[]): ListEntryInput[] {
  const parsed: ListEntryInput[] = [];
  const seen = new Map<string, number>();
  entries.forEach((raw, index) => {
    const field = `lists.${index}`;
    const entry = listEntryInputSchema.safeParse(raw);
    if (!entry.success) {
      issues.push(...issuesOf(entry.error, field));
      return;
    }
    const normalized: ListEntryInput = {
      ...entry.data,
      keyKind: entry.data.kind === 'identifier' ? (entry.data.keyKind ?? null) : null,
    };
    if (normalized.expiresAt != null && Date.parse(normalized.expiresAt) <= now) {
      issues.push({ field: `${field}.expiresAt`, message: 'must be in the future' });
      return;
    }
    const identity = listEntryIdentity(normalized);
    const earlier = seen.get(identity);
    if (earlier !== undefined) {
      issues.push({ field, message: `is the same entry as lists.${earlier}` });
      return;
    }
    seen.set(identity, index);
    parsed.push(normalized);
  });
  return parsed;
}

function parseCandidates(
  candidates: Record<string, unknown>,
  policyNames: string[],
  now: number,
  knowsKey: (key: string) => boolean,
  issues: FieldIssue[],
): Map<string, FileCandidate> {
  const parsed = new Map<string, FileCandidate>();
  for (const name of Object.keys(candidates).sort()) {
    const field = `candidates.${name}`;
    if (!policyNames.includes(name)) {
      issues.push({ field, message: 'names no policy of the file: a candidate runs beside one' });
      continue;
    }
    const raw = candidates[name];
    const shape = z
      .strictObject({
        rules: z.unknown(),
        expiresAt: candidateSchema.shape.expiresAt,
        samplePercent: candidateSchema.shape.samplePercent,
      })
      .safeParse(raw);
    if (!shape.success) {
      issues.push(...issuesOf(shape.error, field));
      continue;
    }
    const policy = parseRules(name, shape.data.rules, `${field}.rules`, issues);
    if (policy === undefined) continue;
    if (!knowsKey(policy.key)) {
      issues.push({
        field: `${field}.rules.key`,
        message: `counts by the tracker "${policy.key}", which this application does not register`,
      });
      continue;
    }
    const expiresAt = Date.parse(shape.data.expiresAt);
    if (expiresAt <= now || expiresAt > now + MAX_CANDIDATE_MS) {
      issues.push({
        field: `${field}.expiresAt`,
        message: 'must be in the future, at most 7 days from now: a candidate is a trial',
      });
      continue;
    }
    parsed.set(name, {
      policy,
      expiresAt,
      samplePercent: shape.data.samplePercent ?? DEFAULT_SAMPLE_PERCENT,
    });
  }
  return parsed;
}
