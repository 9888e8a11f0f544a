import { BadRequestException, type ExecutionContext } from '@nestjs/common';
import type { CallTarget } from '../engine/call.target.js';
import { userAgentOf } from '../http/response.access.js';
import { InvalidIdentifierError } from '../keys/identifier.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestDecider } from './request.decider.js';
import type { Client, RequestParts, RequestSeams } from './request.parts.js';
import type { Tracked } from '../trackers/tracker.resolver.js';
import type { RequestMatch, RequestPlan, RequestTerms } from './request.plan.js';

/**
 * Step 3: the request planned once — who each policy counts it as (one call target per
 * identifier, so each is decided in one store call), its tier and renewal day (asked only when a
 * policy needs them), its client and its cost. Planned at once when every answer is at hand (the
 * built-in keys, a synchronous tier resolver); a promise only when the app answers with one.
 */
export function planned(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
): RequestPlan | Promise<RequestPlan> {
  const groups = identifiersOf(match, context, parts, seams);
  if (groups instanceof Promise) return plannedLater(match, context, parts, seams, decider, groups);
  return plannedWith(match, context, parts, seams, decider, groups);
}

// What waits is in functions of its own: their closures' variables are allocated only where a
// tracker or a resolver answered with a promise, not on every request.

function plannedLater(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
  groups: Promise<Group[]>,
): Promise<RequestPlan> {
  return groups.then((found) => plannedWith(match, context, parts, seams, decider, found));
}

/** The plan once who the request counts as is known; a promise only when a resolver's is. */
function plannedWith(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
  groups: Group[],
): RequestPlan | Promise<RequestPlan> {
  const terms = termsOf(match, context, parts);
  if (terms instanceof Promise)
    return termsLater(match, context, parts, seams, decider, groups, terms);
  return planOf(match, context, parts, seams, decider, groups, terms);
}

function termsLater(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
  groups: Group[],
  terms: Promise<Terms>,
): Promise<RequestPlan> {
  return terms.then((known) => planOf(match, context, parts, seams, decider, groups, known));
}

type Terms = { -readonly [K in keyof RequestTerms]: RequestTerms[K] };

/**
 * The route, and the route's own tier, else the resolver's, asked only when one of its policies
 * has tiers; the renewal day only when one renews monthly. A promise only when a resolver answers
 * with one.
 */
function termsOf(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
): Terms | Promise<Terms> {
  const { policies, req, route } = match;
  const terms: Terms = { route };
  let tier: string | undefined | Promise<string | undefined> = undefined;
  if (policies.some(hasTiers)) {
    tier = match.routeTier;
    if (tier === undefined && parts.asksTier) tier = parts.tiers.resolve(req, context);
  }
  const anchorDay =
    parts.asksAnchorDay && policies.some(renewsMonthly)
      ? parts.tiers.anchorDay(req, context)
      : undefined;
  if (tier instanceof Promise || anchorDay instanceof Promise) {
    return tierLater(terms, tier, anchorDay);
  }
  return withTier(terms, tier, anchorDay);
}

function tierLater(
  terms: Terms,
  tier: string | undefined | Promise<string | undefined>,
  anchorDay: number | undefined | Promise<number | undefined>,
): Promise<Terms> {
  return Promise.all([tier, anchorDay]).then(([knownTier, knownDay]) =>
    withTier(terms, knownTier, knownDay),
  );
}

function withTier(terms: Terms, tier: string | undefined, anchorDay: number | undefined): Terms {
  if (tier !== undefined) terms.tier = tier;
  if (anchorDay !== undefined) terms.anchorDay = anchorDay;
  return terms;
}

/** The plan, once who the request counts as and its terms are known. */
function planOf(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
  groups: Group[],
  terms: Terms,
): RequestPlan {
  const { policies, req, route } = match;
  const client = clientOf(req, parts);
  if (client !== undefined) terms.client = client;
  const cost = seams.cost(req, context);
  if (cost !== undefined) terms.cost = cost;
  const calls: CallTarget[] = [];
  try {
    for (const [keyKind, identifier, counted] of groups) {
      calls.push(decider.target(counted, identifier, keyKind));
    }
  } catch (error) {
    if (error instanceof InvalidIdentifierError) {
      throw new BadRequestException(`${(groups[calls.length] as Group)[0]}: ${error.message}`);
    }
    throw error;
  }
  return {
    kind: match.kind,
    route,
    policies,
    names: match.names,
    routeTier: match.routeTier,
    req,
    res: match.res,
    invocation: match.invocation,
    calls,
    terms,
  };
}

/** One identifier and the policies that count the request as it. */
type Group = [keyKind: string, identifier: string, policies: Policy[]];

/**
 * Groups the policies by who they count, so each identifier is decided in one call; at once
 * unless a tracker answers with a promise, from which policy on the rest are awaited in order.
 */
function identifiersOf(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
): Group[] | Promise<Group[]> {
  const { policies, req } = match;
  const groups: Group[] = [];
  for (let at = 0; at < policies.length; at++) {
    const policy = policies[at] as Policy;
    const tracked = seams.tracker(req, policy.key, context);
    if (tracked instanceof Promise)
      return groupLater(match, context, parts, seams, groups, at, tracked);
    group(match, parts, groups, policy, tracked);
  }
  return groups;
}

async function groupLater(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  groups: Group[],
  from: number,
  pending: Promise<Tracked>,
): Promise<Group[]> {
  const { policies, req } = match;
  group(match, parts, groups, policies[from] as Policy, await pending);
  for (let at = from + 1; at < policies.length; at++) {
    const policy = policies[at] as Policy;
    group(match, parts, groups, policy, await seams.tracker(req, policy.key, context));
  }
  return groups;
}

function group(
  match: RequestMatch,
  parts: RequestParts,
  groups: Group[],
  policy: Policy,
  { keyKind, identifier }: Tracked,
): void {
  if (keyKind !== policy.key && policy.key === 'user') parts.fellBack(match.route, policy);
  for (const each of groups) {
    if (each[0] === keyKind && each[1] === identifier) {
      each[2].push(policy);
      return;
    }
  }
  groups.push([keyKind, identifier, [policy]]);
}

/**
 * What the allow and deny lists' address and User-Agent entries match, read only when such
 * entries exist; undefined without any list entry.
 */
function clientOf(req: unknown, parts: RequestParts): Client {
  const lists = parts.lists;
  if (lists.size === 0) return undefined;
  return {
    address: lists.matchesAddresses ? parts.trackers.clientIp(req) : undefined,
    userAgent: lists.matchesUserAgents ? userAgentOf(req) : undefined,
  };
}

const hasTiers = (policy: Policy): boolean => policy.tiers !== null;
const renewsMonthly = (policy: Policy): boolean => policy.calendar?.unit === 'month';
