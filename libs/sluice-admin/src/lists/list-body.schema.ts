import { listEntryInputSchema } from '@sluice/nest/internals';
import { z } from 'zod';
import type {
  ChangeNoteRequest,
  ListEntryModeChange,
  ListEntryQuery,
  ListEntryRequest,
} from '../common/admin-api.types.js';
import { freeText } from '../common/text.schema.js';

/** POST /lists: the entry, checked as every instance will check it. */
export const listEntryBodySchema = listEntryInputSchema satisfies z.ZodType<ListEntryRequest>;

export type ListEntryBody = z.infer<typeof listEntryBodySchema>;

/** DELETE /lists/:id: an optional note for the audit. */
export const listRemovalSchema = z.strictObject({
  comment: freeText(500).nullish(),
}) satisfies z.ZodType<ChangeNoteRequest>;

export type ListRemovalBody = z.infer<typeof listRemovalSchema>;

/** POST /lists' query: `confirm=broad` for an entry that reaches all traffic or its writer. */
export const listEntryQuerySchema = z.strictObject({
  confirm: z.literal('broad', { error: "must be 'broad'" }).optional(),
}) satisfies z.ZodType<ListEntryQuery>;

export type ListEntryQueryInput = z.infer<typeof listEntryQuerySchema>;

/** PATCH /lists/:id: the mode to switch to, and a note for the audit. */
export const listModeSchema = z.strictObject({
  mode: z.enum(['enforce', 'shadow'], { error: "must be 'enforce' or 'shadow'" }),
  comment: freeText(500).nullish(),
}) satisfies z.ZodType<ListEntryModeChange>;

export type ListModeBody = z.infer<typeof listModeSchema>;
