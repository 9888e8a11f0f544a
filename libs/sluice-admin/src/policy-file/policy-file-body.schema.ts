import { z } from 'zod';
import type { PolicyFileApplyRequest, PolicyFileDiffRequest } from '../common/policy-file.types.js';
import { freeText } from '../common/text.schema.js';
import { policyFileSchema } from './policy-file.schema.js';

/** POST /policy-file/diff: the document; PolicyFileService checks each policy through. */
export const policyFileDiffSchema = z.strictObject({
  document: policyFileSchema,
}) satisfies z.ZodType<PolicyFileDiffRequest>;

/** POST /policy-file/apply: the document, a note for the audit, and whether to overwrite. */
export const policyFileApplySchema = z.strictObject({
  document: policyFileSchema,
  comment: freeText(500).nullish(),
  force: z.boolean({ error: 'must be true or false' }).optional(),
}) satisfies z.ZodType<PolicyFileApplyRequest>;

/** GET /policy-file's query. */
export const policyFileQuerySchema = z.strictObject({
  candidates: z.enum(['true', 'false'], { error: "must be 'true' or 'false'" }).optional(),
});

export type PolicyFileDiffBody = z.output<typeof policyFileDiffSchema>;
export type PolicyFileApplyBody = z.output<typeof policyFileApplySchema>;
export type PolicyFileQueryBody = z.output<typeof policyFileQuerySchema>;
