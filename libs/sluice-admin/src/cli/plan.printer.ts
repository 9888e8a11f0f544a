import type {
  PolicyFileChange,
  PolicyFileConflict,
  PolicyFilePlan,
} from '../common/policy-file.types.js';

const MARKS: Record<PolicyFileChange['action'], string> = {
  create: '+',
  update: '~',
  delete: '-',
  revert: '<',
};

const NOTES: Partial<Record<PolicyFileChange['action'], string>> = {
  delete: ' (deleted)',
  revert: ' (returns to its code default)',
};

function value(of: unknown): string {
  return of === undefined ? 'none' : JSON.stringify(of);
}

/** One change as lines: "~ policy api", then "    limit: 100 -> 200" per field. */
export function changeLines(change: PolicyFileChange): string[] {
  const head = `${MARKS[change.action]} ${change.kind} ${change.target}${NOTES[change.action] ?? ''}`;
  const fields = change.fields.map((field) =>
    change.action === 'create'
      ? `    ${field.field}: ${value(field.after)}`
      : `    ${field.field}: ${value(field.before)} -> ${value(field.after)}`,
  );
  const resets = change.resets === undefined ? [] : [`    ! resets the counts: ${change.resets}`];
  return [head, ...fields, ...resets];
}

export function conflictLine(conflict: PolicyFileConflict): string {
  return `  ${conflict.action} ${conflict.target} by ${conflict.actor} at version ${conflict.version} (${conflict.at})`;
}

/** What `sluice diff` prints. */
export function planText(plan: PolicyFilePlan, fileVersion: number): string {
  const lines = plan.changes.flatMap(changeLines);
  const count = plan.changes.length;
  lines.push(
    count === 0
      ? `No changes: the admin (version ${plan.version}) already holds what the file says.`
      : `${count} change${count === 1 ? '' : 's'} to apply (the admin is at version ${plan.version}).`,
  );
  if (plan.foreign) {
    lines.push(
      `The file's version ${fileVersion} is ahead of this admin's: it was exported from another admin; apply it with --force.`,
    );
  }
  if (plan.conflicts.length > 0) {
    lines.push(
      `Applying would overwrite ${plan.conflicts.length} change${plan.conflicts.length === 1 ? '' : 's'} made since the file's version ${fileVersion} (export again, or apply with --force):`,
      ...plan.conflicts.map(conflictLine),
    );
  }
  return `${lines.join('\n')}\n`;
}
