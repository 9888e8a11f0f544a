import { z } from 'zod';
import type { CandidatePromotion } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { freeText } from '../common/text.schema.js';

export const DEFAULT_CANDIDATE_MS = 86_400_000;
export const MAX_CANDIDATE_MS = 7 * 86_400_000;
const MIN_CANDIDATE_MS = 60_000;

const EXPIRES_RULE = `must be a whole number of milliseconds from ${MIN_CANDIDATE_MS} (a minute) to ${MAX_CANDIDATE_MS} (7 days)`;

/** `expiresInMs` of a proposal; the rest of its body is a policy, as PUT /policies takes it. */
const expiresInMs = z
  .number({ error: EXPIRES_RULE })
  .int({ error: EXPIRES_RULE })
  .min(MIN_CANDIDATE_MS, { error: EXPIRES_RULE })
  .max(MAX_CANDIDATE_MS, { error: EXPIRES_RULE });

/** POST …/candidate/promote: an optional confirmation and note. */
export const candidatePromotionSchema = z.strictObject({
  confirm: z.boolean({ error: 'must be true or false' }).optional(),
  comment: freeText(500).nullable().optional(),
}) satisfies z.ZodType<CandidatePromotion>;

export type CandidatePromotionBody = z.output<typeof candidatePromotionSchema>;

/**
 * The share of identifiers a candidate is decided for when the proposal does not say. Each one
 * decided costs Redis about as much again as the live policy, so 5 % keeps a policy with a
 * candidate within 1.1× of its cost without one (docs/benchmarks.md, docs/operations.md).
 */
export const DEFAULT_SAMPLE_PERCENT = 5;

const SAMPLE_RULE = 'must be a whole number of percent from 1 to 100';

const samplePercent = z
  .number({ error: SAMPLE_RULE })
  .int({ error: SAMPLE_RULE })
  .min(1, { error: SAMPLE_RULE })
  .max(100, { error: SAMPLE_RULE });

/** What a proposal says beside its rules. */
export interface ProposalParts {
  policyBody: unknown;
  lifetimeMs: number;
  samplePercent: number;
}

/**
 * Splits a proposal into its lifetime and sample (checked here, 400 naming `expiresInMs` or
 * `samplePercent`) and the policy body PUT /policies would take (checked by parsePolicyWrite).
 */
export function proposalParts(body: unknown): ProposalParts {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      policyBody: body,
      lifetimeMs: DEFAULT_CANDIDATE_MS,
      samplePercent: DEFAULT_SAMPLE_PERCENT,
    };
  }
  const {
    expiresInMs: givenLifetime,
    samplePercent: givenSample,
    ...policyBody
  } = body as Record<string, unknown>;
  const issues: Array<{ field: string; message: string }> = [];
  const lifetime = expiresInMs.safeParse(givenLifetime ?? DEFAULT_CANDIDATE_MS);
  if (!lifetime.success) issues.push({ field: 'expiresInMs', message: EXPIRES_RULE });
  const sample = samplePercent.safeParse(givenSample ?? DEFAULT_SAMPLE_PERCENT);
  if (!sample.success) issues.push({ field: 'samplePercent', message: SAMPLE_RULE });
  if (!lifetime.success || !sample.success) throw new InvalidRequestException(issues);
  return { policyBody, lifetimeMs: lifetime.data, samplePercent: sample.data };
}
