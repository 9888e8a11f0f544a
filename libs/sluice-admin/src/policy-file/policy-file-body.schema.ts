import { z } from 'zod';
import type { PolicyFileApplyRequest, PolicyFileDiffRequest } from '../common/policy-file.types.js';
import { freeText } from '../common/text.schema.js';
import { policyFileSchema } from './policy-file.schema.js';

/** POST /policy-file/diff as the API description states it. */
export const policyFileDiffSchema = z.strictObject({
  document: policyFileSchema,
}) satisfies z.ZodType<PolicyFileDiffRequest>;

/** POST /policy-file/apply as described: the document, a note for the audit, whether to overwrite. */
export const policyFileApplySchema = z.strictObject({
  document: policyFileSchema,
  comment: freeText(500).nullish(),
  force: z.boolean({ error: 'must be true or false' }).optional(),
}) satisfies z.ZodType<PolicyFileApplyRequest>;

/** GET /policy-file's query. */
export const policyFileQuerySchema = z.strictObject({
  candidates: z.enum(['true', 'false'], { error: "must be 'true' or 'false'" }).optional(),
});

/**
 * What the handlers parse: the document as sent, untouched (PolicyFileService checks it through,
 * key by key: a record's parse would drop a "__proto__" policy instead of naming it).
 */
export const policyFileDiffEnvelope = policyFileDiffSchema.extend({ document: z.unknown() });
export const policyFileApplyEnvelope = policyFileApplySchema.extend({ document: z.unknown() });

export type PolicyFileDiffBody = z.output<typeof policyFileDiffEnvelope>;
export type PolicyFileApplyBody = z.output<typeof policyFileApplyEnvelope>;
export type PolicyFileQueryBody = z.output<typeof policyFileQuerySchema>;
