import { isDeepStrictEqual } from 'node:util';
import type { Actor } from '../common/actor.js';
import type { Policy } from '@sluice/nest/internals';

/** What a policy decides; the rest (name, version, source, updatedAt, updatedBy) is bookkeeping. */
export const RULE_FIELDS = [
  'algorithm',
  'limit',
  'periodMs',
  'calendar',
  'burst',
  'segments',
  'maxDelayMs',
  'cost',
  'usage',
  'key',
  'match',
  'count',
  'penalty',
  'mode',
  'onStoreError',
  'consistency',
  'syncMs',
  'overrides',
  'tiers',
  'description',
] as const satisfies ReadonlyArray<keyof Policy>;

export type RuleField = (typeof RULE_FIELDS)[number];

/** The rule fields whose values differ, in RULE_FIELDS order. */
export function changedRuleFields(before: Policy, after: Policy): RuleField[] {
  return RULE_FIELDS.filter((field) => !isDeepStrictEqual(before[field], after[field]));
}

/** The policy as written at `version` by `actor`. */
export function stamped(
  policy: Policy,
  source: Policy['source'],
  version: number,
  actor: Actor,
): Policy {
  return {
    ...policy,
    version,
    source,
    updatedAt: new Date().toISOString(),
    updatedBy: actor.name,
  };
}
