import { summarize, type Decision, type PolicyDecision } from '../engine/decision.js';
import { USUAL_PERIOD_MS } from '../clock/calendar.js';
import type { Policy } from '../policy/policy.types.js';
import type { HeaderStyle } from '../config/sluice-options.interface.js';

type Headers = Array<[name: string, value: string]>;

const seconds = (ms: number): number => Math.ceil(ms / 1000);

/** The headers of a response guarded by `policies`, which `decision` decided. */
export function guardedResponseHeaders(
  style: HeaderStyle,
  decision: Decision,
  policies: readonly Policy[],
): Headers {
  // Without the store, or for an identifier allowed without limit, there are no figures to show.
  const enforced: PolicyDecision[] = [];
  for (const part of decision.policies) {
    if (part.reason === 'store-error' || part.override?.unlimited === true) continue;
    if (policyNamed(policies, part.policy)?.mode === 'enforce') enforced.push(part);
  }
  return rateLimitHeaders(style, decision, enforced, (name) =>
    windowMsOf(policyNamed(policies, name)),
  );
}

function policyNamed(policies: readonly Policy[], name: string): Policy | undefined {
  for (const policy of policies) if (policy.name === name) return policy;
  return undefined;
}

/** The window RateLimit-Policy announces: the period, or a calendar unit's usual length. */
function windowMsOf(policy: Policy | undefined): number {
  if (policy === undefined) return 0;
  return policy.calendar === null ? policy.periodMs : USUAL_PERIOD_MS[policy.calendar.unit];
}

/**
 * The headers a guarded response carries: the IETF draft's `RateLimit-Policy` and `RateLimit`
 * (one item per enforced policy) and/or the legacy `X-RateLimit-*` of the deciding enforced
 * policy; and `Retry-After` on a refusal.
 */
export function rateLimitHeaders(
  style: HeaderStyle,
  decision: Decision,
  enforced: readonly PolicyDecision[],
  periodMsOf: (policy: string) => number,
): Headers {
  // A refusal always says when to come back, whatever the style.
  const headers: Headers = decision.allowed
    ? []
    : [['Retry-After', String(seconds(decision.retryAfterMs))]];
  if ((style === 'draft' || style === 'both') && enforced.length > 0) {
    let policy = '';
    let state = '';
    for (const part of enforced) {
      const separator = policy === '' ? '' : ', ';
      policy += separator + policyItem(part, periodMsOf);
      state += `${separator}"${part.policy}";r=${part.remaining};t=${seconds(untilReset(part))}`;
    }
    headers.push(['RateLimit-Policy', policy], ['RateLimit', state]);
  }
  if ((style === 'legacy' || style === 'both') && enforced.length > 0) {
    // The deciding policy among the enforced ones: a shadow policy is never shown.
    const deciding = summarize([...enforced], decision.allowed);
    headers.push(
      ['X-RateLimit-Limit', String(quotaOf(deciding))],
      ['X-RateLimit-Remaining', String(deciding.remaining)],
      ['X-RateLimit-Reset', String(seconds(untilReset(deciding)))],
    );
  }
  return headers;
}

/** Each policy's last RateLimit-Policy item, by name, with the quota and window it states. */
const policyItems = new Map<string, { quota: number; windowS: number; item: string }>();
/** Policies whose items are kept at most: past it the map starts again (names are few). */
const POLICY_ITEMS_KEPT = 1_000;

/**
 * A policy's RateLimit-Policy item: the same text on most responses, so it is made again only
 * when its quota (a tier's, an override's, credits) or its window differs from the last one.
 */
function policyItem(part: PolicyDecision, periodMsOf: (policy: string) => number): string {
  const quota = quotaOf(part);
  const windowS = seconds(periodMsOf(part.policy));
  const known = policyItems.get(part.policy);
  if (known !== undefined && known.quota === quota && known.windowS === windowS) return known.item;
  const item = `"${part.policy}";q=${quota};w=${windowS}`;
  if (policyItems.size >= POLICY_ITEMS_KEPT) policyItems.clear();
  policyItems.set(part.policy, { quota, windowS, item });
  return item;
}

/** What the period admits: the limit, with the credits granted for it (docs/algorithms.md). */
const quotaOf = (part: PolicyDecision): number => Math.max(0, part.limit + (part.granted ?? 0));

/** A refused policy's quota comes back when its caller may retry. */
const untilReset = (part: PolicyDecision): number =>
  part.allowed ? part.resetMs : Math.max(part.retryAfterMs, 0);
