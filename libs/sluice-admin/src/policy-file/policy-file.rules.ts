import { parsePolicy, type Policy } from '@sluice/nest/internals';
import { isDeepStrictEqual } from 'node:util';
import type { PolicyFileCandidate, PolicyFileRules } from '../common/policy-file.types.js';
import { changedRuleFields, RULE_FIELDS } from '../policies/policy-rules.js';

type Rules = Record<string, unknown>;

/** Every rule field, overrides' expiries as ISO 8601 so a person can read them. */
function fullRules(policy: Policy): Rules {
  const rules: Rules = {};
  for (const field of RULE_FIELDS) rules[field] = policy[field];
  rules.overrides = policy.overrides.map((override) => ({
    ...override,
    expiresAt: override.expiresAt === null ? null : new Date(override.expiresAt).toISOString(),
  }));
  return rules;
}

function decidesAlike(policy: Policy, rules: Rules): boolean {
  try {
    return changedRuleFields(policy, parsePolicy({ ...rules, name: policy.name })).length === 0;
  } catch {
    return false;
  }
}

/** The objects nested one level in `rules` whose fields may be left out too. */
function nestedObjects(rules: Rules): Rules[] {
  const nested: Rules[] = [];
  for (const value of Object.values(rules)) {
    if (Array.isArray(value)) {
      nested.push(
        ...value.filter((item): item is Rules => typeof item === 'object' && item !== null),
      );
    } else if (typeof value === 'object' && value !== null) {
      nested.push(value as Rules);
      // tiers: one object per tier
      for (const inner of Object.values(value as Rules)) {
        if (typeof inner === 'object' && inner !== null && !Array.isArray(inner))
          nested.push(inner as Rules);
      }
    }
  }
  return nested;
}

/**
 * The policy's rules with every field that holds its default left out: what a person would have
 * written. Parsing them gives the same rules back (the test says so for every algorithm), so a
 * file stays short and a default changed in a later release reaches it.
 */
export function compactRules(policy: Policy): PolicyFileRules {
  const rules = structuredClone(fullRules(policy));
  const attempt = (owner: Rules, field: string): void => {
    const value = owner[field];
    delete owner[field];
    if (!decidesAlike(policy, rules)) owner[field] = value;
  };
  for (const field of Object.keys(rules)) {
    if (field === 'algorithm' || field === 'limit') continue;
    attempt(rules, field);
  }
  for (const owner of nestedObjects(rules)) {
    for (const field of Object.keys(owner)) attempt(owner, field);
  }
  return inOrderOf(rules, fullRules(policy)) as PolicyFileRules;
}

/** `value` with every object's keys in the order `template` has them (a kept field went last). */
function inOrderOf(value: unknown, template: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item, index) => inOrderOf(item, (template as unknown[])[index]));
  }
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Rules;
  const order = Object.keys(template as Rules).filter((key) => Object.hasOwn(source, key));
  return Object.fromEntries(
    order.map((key) => [key, inOrderOf(source[key], (template as Rules)[key])]),
  );
}

/** Whether two policies decide alike (their rules are the same), bookkeeping aside. */
export function sameRules(left: Policy, right: Policy): boolean {
  return changedRuleFields(left, right).length === 0;
}

/** The fields whose values differ, with both values, in RULE_FIELDS order. */
export function ruleDifferences(
  before: Policy,
  after: Policy,
): Array<{ field: string; before: unknown; after: unknown }> {
  return changedRuleFields(before, after).map((field) => ({
    field,
    before: before[field],
    after: after[field],
  }));
}

/** Deep equality of two plain values, for list entries and candidates. */
export function sameValue(left: unknown, right: unknown): boolean {
  return isDeepStrictEqual(left, right);
}

/** A candidate as a file writes it: its rules, when it ends, its sample. */
export function candidateFields(candidate: {
  policy: Policy;
  expiresAt: number;
  samplePercent: number;
}): Required<PolicyFileCandidate> {
  return {
    rules: compactRules(candidate.policy),
    expiresAt: new Date(candidate.expiresAt).toISOString(),
    samplePercent: candidate.samplePercent,
  };
}
