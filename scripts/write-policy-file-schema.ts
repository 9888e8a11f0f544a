// Writes libs/sluice-admin/policy-file.schema.json from the schema the admin checks policy files
// with; the unit test policy-file.json-schema.spec.ts fails while the written one is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  POLICY_FILE_SCHEMA_PATH,
  policyFileJsonSchema,
} from '../libs/sluice-admin/src/policy-file/policy-file.json-schema.js';

const target = fileURLToPath(
  new URL(`../libs/sluice-admin/${POLICY_FILE_SCHEMA_PATH}`, import.meta.url),
);
writeFileSync(target, policyFileJsonSchema());
console.log(`wrote ${target}`);
