import type { Calendar, Policy } from '@sluice/nest/internals';

// A change that moves where a policy's state lives, or where its windows start, starts every
// identifier's count afresh; the operator is told exactly that and asked to confirm
// (docs/operations.md, "Changing a policy").

/** How a calendar reads to an operator: "a month from the 15th in Europe/Paris". */
function calendarText(calendar: Calendar): string {
  const from =
    calendar.unit === 'month' && calendar.anchorDay !== null && calendar.anchorDay !== 1
      ? ` from the ${ordinal(calendar.anchorDay)}`
      : '';
  return `a ${calendar.unit === 'week' ? 'ISO week' : calendar.unit}${from} in ${calendar.timeZone}`;
}

function ordinal(day: number): string {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

function windowsText(policy: Policy): string {
  return policy.calendar === null
    ? `windows of ${policy.periodMs} ms`
    : `periods of ${calendarText(policy.calendar)}`;
}

function sameCalendar(a: Calendar | null, b: Calendar | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.unit === b.unit && a.timeZone === b.timeZone && (a.anchorDay ?? 1) === (b.anchorDay ?? 1)
  );
}

/**
 * What replacing `before` by `after` resets, as a sentence, or undefined when every identifier
 * keeps its count: a new algorithm (its state is kept apart), or a fixed-window's windows moved
 * (another calendar, zone or anchor, or another period), which starts a new period now.
 */
export function countsResetBy(before: Policy | null, after: Policy): string | undefined {
  if (before === null) return undefined;
  if (before.algorithm !== after.algorithm) {
    return `changing the algorithm from ${before.algorithm} to ${after.algorithm} starts every identifier's count afresh: what they used so far is not carried over`;
  }
  if (after.algorithm !== 'fixed-window') return undefined;
  const moved =
    !sameCalendar(before.calendar, after.calendar) ||
    (after.calendar === null && before.periodMs !== after.periodMs);
  if (!moved) return undefined;
  return `changing ${windowsText(before)} to ${windowsText(after)} starts a new period for every identifier now: the counts of the period in progress and the credits granted for it are reset`;
}
