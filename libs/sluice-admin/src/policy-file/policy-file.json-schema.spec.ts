import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { POLICY_FILE_SCHEMA_PATH, policyFileJsonSchema } from './policy-file.json-schema.js';

describe('the published JSON Schema of a policy file', () => {
  it('is the one the admin checks with (npm run schema:update writes it)', () => {
    const published = readFileSync(
      fileURLToPath(new URL(`../../${POLICY_FILE_SCHEMA_PATH}`, import.meta.url)),
      'utf8',
    );
    expect(published).toBe(policyFileJsonSchema());
  });

  it("names a policy's rules, so an editor flags a misspelt field", () => {
    const schema = JSON.parse(policyFileJsonSchema()) as {
      required: string[];
      properties: {
        policies: { additionalProperties: { properties: object; additionalProperties: boolean } };
      };
    };
    expect(schema.required).toEqual(['sluice', 'version', 'policies']);
    const rules = schema.properties.policies.additionalProperties;
    expect(Object.keys(rules.properties)).toEqual(
      expect.arrayContaining(['algorithm', 'limit', 'tiers', 'overrides']),
    );
    expect(rules.additionalProperties).toBe(false);
  });
});
