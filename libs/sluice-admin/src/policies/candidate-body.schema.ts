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
 * Splits a proposal into its lifetime (checked here, 400 naming `expiresInMs`) and the policy
 * body PUT /policies would take (checked by parsePolicyWrite).
 */
export function proposalParts(body: unknown): { policyBody: unknown; lifetimeMs: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { policyBody: body, lifetimeMs: DEFAULT_CANDIDATE_MS };
  }
  const { expiresInMs: given, ...policyBody } = body as Record<string, unknown>;
  if (given === undefined) return { policyBody, lifetimeMs: DEFAULT_CANDIDATE_MS };
  const parsed = expiresInMs.safeParse(given);
  if (!parsed.success) {
    throw new InvalidRequestException([{ field: 'expiresInMs', message: EXPIRES_RULE }]);
  }
  return { policyBody, lifetimeMs: parsed.data };
}
