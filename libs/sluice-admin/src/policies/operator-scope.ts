import { ForbiddenException } from '@nestjs/common';
import type { Policy, PolicyMode } from '@sluice/nest/internals';
import type { Actor } from '../common/actor.js';
import { changedRuleFields } from './policy-rules.js';

const OPERATOR_MODES: readonly PolicyMode[] = ['enforce', 'shadow'];

/**
 * The fields a change touches beyond an operator's remit: everything but `overrides`, and `mode`
 * unless it moves between enforce and shadow (turning a policy off is an admin's call).
 */
export function beyondOperatorScope(before: Policy, after: Policy): string[] {
  return changedRuleFields(before, after).filter(
    (field) =>
      field !== 'overrides' &&
      !(
        field === 'mode' &&
        OPERATOR_MODES.includes(before.mode) &&
        OPERATOR_MODES.includes(after.mode)
      ),
  );
}

/** 403 unless the actor is an admin, or an operator (the route's lowest role) within its remit. */
export function assertMayChange(actor: Actor, before: Policy | null, after: Policy): void {
  if (actor.role === 'admin') return;
  if (before === null) {
    throw new ForbiddenException({
      statusCode: 403,
      error: 'Forbidden',
      message: `Creating a policy needs the admin role; you are ${actor.role}`,
    });
  }
  const fields = beyondOperatorScope(before, after);
  if (fields.length === 0) return;
  throw new ForbiddenException({
    statusCode: 403,
    error: 'Forbidden',
    message: `Operators may change only overrides, and mode between enforce and shadow; changing ${fields.join(', ')} needs the admin role`,
    fields,
  });
}
