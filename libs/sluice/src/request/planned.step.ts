import { BadRequestException, type ExecutionContext } from '@nestjs/common';
import type { CallTarget } from '../engine/call.target.js';
import { userAgentOf } from '../http/response.access.js';
import { InvalidIdentifierError } from '../keys/identifier.js';
import type { Policy } from '../policy/policy.types.js';
import type { RequestDecider } from './request.decider.js';
import type { Client, RequestParts, RequestSeams } from './request.parts.js';
import type { RequestMatch, RequestPlan, RequestTerms } from './request.plan.js';

/**
 * Step 3: the request planned once — who each policy counts it as (one call target per
 * identifier, so each is decided in one store call), its tier and renewal day (asked only when a
 * policy needs them), its client and its cost.
 */
export async function planned(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
  decider: RequestDecider,
): Promise<RequestPlan> {
  const { policies, req, route } = match;
  const groups = await identifiersOf(match, context, parts, seams);
  const terms: { -readonly [K in keyof RequestTerms]: RequestTerms[K] } = { route };
  // The route's own tier, else the resolver's, asked only when one of its policies has tiers.
  if (policies.some(hasTiers)) {
    let tier = match.routeTier;
    if (tier === undefined && parts.asksTier) {
      const resolved = parts.tiers.resolve(req, context);
      // A synchronous resolver's answer is used as it is: no await, no turn of the event loop.
      tier = resolved instanceof Promise ? await resolved : resolved;
    }
    if (tier !== undefined) terms.tier = tier;
  }
  if (parts.asksAnchorDay && policies.some(renewsMonthly)) {
    const resolved = parts.tiers.anchorDay(req, context);
    const anchorDay = resolved instanceof Promise ? await resolved : resolved;
    if (anchorDay !== undefined) terms.anchorDay = anchorDay;
  }
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

/** Groups the policies by who they count, so each identifier is decided in one call. */
async function identifiersOf(
  match: RequestMatch,
  context: ExecutionContext,
  parts: RequestParts,
  seams: RequestSeams,
): Promise<Group[]> {
  const { policies, req, route } = match;
  const groups: Group[] = [];
  for (const policy of policies) {
    const { keyKind, identifier } = await seams.tracker(req, policy.key, context);
    if (keyKind !== policy.key && policy.key === 'user') parts.fellBack(route, policy);
    const group = groups.find((each) => each[0] === keyKind && each[1] === identifier);
    if (group === undefined) groups.push([keyKind, identifier, [policy]]);
    else group[2].push(policy);
  }
  return groups;
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
