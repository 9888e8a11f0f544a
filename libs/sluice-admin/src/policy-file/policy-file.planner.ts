import type { ListEntry, ListEntryInput, Policy } from '@sluice/nest/internals';
import type { FieldIssue } from '../common/invalid-request.exception.js';
import type { PolicyFileChange, PolicyFileFieldChange } from '../common/policy-file.types.js';
import { RESERVED_POLICY_PREFIX } from '../policies/policy-body.schema.js';
import { countsResetBy } from '../policies/counts-reset.js';
import type { FileCandidate, ParsedPolicyFile } from './policy-file.schema.js';
import { listEntryIdentity } from './policy-file.schema.js';
import {
  candidateFields,
  compactRules,
  ruleDifferences,
  sameRules,
  sameValue,
} from './policy-file.rules.js';

/** A stored policy as the planner reads it. */
export interface LivePolicy {
  body: Policy;
  source: 'code' | 'admin';
  version: number;
}

/** What the admin holds now, as far as a file can change it. */
export interface LiveState {
  policies: Map<string, LivePolicy>;
  /** The entries in force (expired ones are left alone). */
  lists: ListEntry[];
  candidates: Map<string, FileCandidate>;
  codeDefaults: Map<string, Policy>;
  /** The handlers that name a policy, as "GET /posts (PostsController.list)". */
  routesOf: (name: string) => string[];
}

/** One write an apply makes, in the order it makes them. */
export type PlannedWrite =
  | { type: 'policy.put'; name: string; policy: Policy; before: Policy | null }
  | { type: 'policy.revert'; name: string; policy: Policy; before: Policy }
  | { type: 'policy.delete'; name: string; before: Policy }
  | { type: 'list.add'; entry: ListEntryInput }
  | { type: 'list.replace'; id: string; entry: ListEntryInput; before: ListEntry }
  | { type: 'list.remove'; id: string; before: ListEntry }
  | {
      type: 'candidate.propose';
      name: string;
      candidate: FileCandidate;
      before: FileCandidate | null;
    }
  | { type: 'candidate.discard'; name: string; before: FileCandidate };

export interface PolicyFilePlanned {
  changes: PolicyFileChange[];
  writes: PlannedWrite[];
  /** Why the file cannot be applied as it stands, each naming the field; empty when it can. */
  refusals: FieldIssue[];
}

function fieldsOf(rules: object): PolicyFileFieldChange[] {
  return Object.entries(rules as Record<string, unknown>).map(([field, after]) => ({
    field,
    before: null,
    after,
  }));
}

/** "deny address 203.0.113.7", "allow identifier user:42*": how the diff names an entry. */
export function describeEntry(
  entry: Pick<ListEntryInput, 'list' | 'kind' | 'value' | 'keyKind' | 'prefix'>,
): string {
  const kind =
    entry.kind === 'identifier' && entry.keyKind != null
      ? `identifier ${entry.keyKind}:`
      : `${entry.kind} `;
  return `${entry.list} ${kind}${entry.value}${entry.prefix === true ? '*' : ''}`;
}

/** The fields of an entry a change may set, as the file writes them. */
function entryFields(entry: ListEntryInput | ListEntry): Record<string, unknown> {
  return {
    policies: entry.policies ?? null,
    mode: entry.mode ?? 'enforce',
    reason: entry.reason,
    expiresAt: entry.expiresAt == null ? null : new Date(entry.expiresAt).toISOString(),
  };
}

/** `{ resets }` when the change starts every identifier's count afresh, else nothing. */
function resetsOf(before: Policy, after: Policy): { resets?: string } {
  const resets = countsResetBy(before, after);
  return resets === undefined ? {} : { resets };
}

function planPolicies(file: ParsedPolicyFile, live: LiveState, plan: PolicyFilePlanned): void {
  const names = new Set([...file.policies.keys(), ...live.policies.keys()]);
  for (const name of [...names].sort()) {
    if (name.startsWith(RESERVED_POLICY_PREFIX)) continue;
    const wanted = file.policies.get(name);
    const stored = live.policies.get(name);
    if (wanted !== undefined) {
      if (stored === undefined) {
        plan.writes.push({ type: 'policy.put', name, policy: wanted, before: null });
        plan.changes.push({
          kind: 'policy',
          action: 'create',
          target: name,
          fields: fieldsOf(compactRules(wanted)),
        });
      } else if (!sameRules(stored.body, wanted)) {
        plan.writes.push({ type: 'policy.put', name, policy: wanted, before: stored.body });
        plan.changes.push({
          kind: 'policy',
          action: 'update',
          target: name,
          fields: ruleDifferences(stored.body, wanted),
          ...resetsOf(stored.body, wanted),
        });
      }
      continue;
    }
    if (stored === undefined) continue;
    const codeDefault = live.codeDefaults.get(name);
    if (codeDefault !== undefined) {
      if (stored.source === 'code' && sameRules(stored.body, codeDefault)) continue;
      plan.writes.push({ type: 'policy.revert', name, policy: codeDefault, before: stored.body });
      plan.changes.push({
        kind: 'policy',
        action: 'revert',
        target: name,
        fields: ruleDifferences(stored.body, codeDefault),
        ...resetsOf(stored.body, codeDefault),
      });
      continue;
    }
    const routes = live.routesOf(name);
    if (routes.length > 0) {
      plan.refusals.push({
        field: `policies.${name}`,
        message: `is missing, but ${routes.join(', ')} still uses it and the code gives it no default: keep it in the file or take it off those routes first`,
      });
      continue;
    }
    plan.writes.push({ type: 'policy.delete', name, before: stored.body });
    plan.changes.push({ kind: 'policy', action: 'delete', target: name, fields: [] });
  }
}

function planLists(wanted: ListEntryInput[], live: LiveState, plan: PolicyFilePlanned): void {
  const stored = new Map<string, ListEntry[]>();
  for (const entry of live.lists) {
    const identity = listEntryIdentity(entry);
    stored.set(identity, [...(stored.get(identity) ?? []), entry]);
  }
  for (const entry of wanted) {
    const identity = listEntryIdentity(entry);
    const [current, ...duplicates] = stored.get(identity) ?? [];
    stored.set(identity, duplicates);
    const target = describeEntry(entry);
    const after = entryFields(entry);
    if (current === undefined) {
      plan.writes.push({ type: 'list.add', entry });
      plan.changes.push({ kind: 'list', action: 'create', target, fields: fieldsOf(after) });
      continue;
    }
    const before = entryFields(current);
    const fields = Object.keys(after)
      .filter((field) => !sameValue(before[field], after[field]))
      .map((field) => ({ field, before: before[field], after: after[field] }));
    if (fields.length === 0) continue;
    plan.writes.push({ type: 'list.replace', id: current.id, entry, before: current });
    plan.changes.push({ kind: 'list', action: 'update', target, fields });
  }
  for (const entry of [...stored.values()].flat()) {
    plan.writes.push({ type: 'list.remove', id: entry.id, before: entry });
    plan.changes.push({ kind: 'list', action: 'delete', target: describeEntry(entry), fields: [] });
  }
}

function planCandidates(
  wanted: Map<string, FileCandidate>,
  live: LiveState,
  plan: PolicyFilePlanned,
): void {
  const names = new Set([...wanted.keys(), ...live.candidates.keys()]);
  for (const name of [...names].sort()) {
    if (name.startsWith(RESERVED_POLICY_PREFIX)) continue;
    const candidate = wanted.get(name);
    const stored = live.candidates.get(name) ?? null;
    if (candidate === undefined) {
      // A policy the apply deletes takes its candidate with it.
      if (
        stored !== null &&
        plan.writes.every((write) => write.type !== 'policy.delete' || write.name !== name)
      ) {
        plan.writes.push({ type: 'candidate.discard', name, before: stored });
        plan.changes.push({ kind: 'candidate', action: 'delete', target: name, fields: [] });
      }
      continue;
    }
    const after = candidateFields(candidate);
    if (stored === null) {
      plan.writes.push({ type: 'candidate.propose', name, candidate, before: null });
      plan.changes.push({
        kind: 'candidate',
        action: 'create',
        target: name,
        fields: fieldsOf(after),
      });
      continue;
    }
    const before = candidateFields(stored);
    const ruleFields = ruleDifferences(stored.policy, candidate.policy).map((change) => ({
      ...change,
      field: `rules.${change.field}`,
    }));
    const fields = [
      ...ruleFields,
      ...(['expiresAt', 'samplePercent'] as const)
        .filter((field) => !sameValue(before[field], after[field]))
        .map((field) => ({ field, before: before[field], after: after[field] })),
    ];
    if (fields.length === 0) continue;
    plan.writes.push({ type: 'candidate.propose', name, candidate, before: stored });
    plan.changes.push({ kind: 'candidate', action: 'update', target: name, fields });
  }
}

/**
 * What applying `file` over `live` changes, as the diff shows it and the apply writes it: policies
 * by name, then list entries, then candidates. A stored policy the file leaves out returns to its
 * code default, or is deleted when it has none (refused while a route names it).
 */
export function planPolicyFile(file: ParsedPolicyFile, live: LiveState): PolicyFilePlanned {
  const plan: PolicyFilePlanned = { changes: [], writes: [], refusals: [] };
  planPolicies(file, live, plan);
  if (file.lists !== null) {
    const known = new Set([...file.policies.keys(), ...live.codeDefaults.keys()]);
    file.lists.forEach((entry, index) => {
      (entry.policies ?? []).forEach((name, at) => {
        if (!known.has(name)) {
          plan.refusals.push({
            field: `lists.${index}.policies.${at}`,
            message: `no policy is named ${name}`,
          });
        }
      });
    });
    planLists(file.lists, live, plan);
  }
  if (file.candidates !== null) planCandidates(file.candidates, live, plan);
  return plan;
}
