import { z } from 'zod';
import { policyFileSchema } from './policy-file.schema.js';

/** Where the package publishes the file's JSON Schema, relative to its root. */
export const POLICY_FILE_SCHEMA_PATH = 'policy-file.schema.json';

/**
 * The policy file's JSON Schema as editors read it (draft 2020-12), from the schema the admin
 * checks files with; `npm run schema:update` writes it beside the package's manifest.
 */
export function policyFileJsonSchema(): string {
  const schema = z.toJSONSchema(policyFileSchema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
