import type {
  AuditPage,
  AuditQuery,
  BlockRequest,
  BlockResult,
  BlockedList,
  BlockedQuery,
  CandidateComparison,
  CandidatePromotion,
  CandidateProposal,
  CandidateView,
  ChangeNoteRequest,
  CounterResetQuery,
  CounterResetResult,
  EnforcementRequest,
  EnforcementState,
  IdentifierList,
  IdentifiersQuery,
  InspectResult,
  InstanceList,
  PenaltyPage,
  PenaltyQuery,
  PolicyList,
  PolicyRemovalResult,
  PolicyRevisionList,
  PolicyView,
  PolicyWriteRequest,
  RouteList,
  SessionView,
  SignInRequest,
  StatsQuery,
  StatsSeries,
  UnblockQuery,
  UnblockResult,
} from './admin-api.types.js';

/**
 * Every JSON route of the admin API under `/<path>/api`: what it takes (path parameters in the
 * key, `query`, `body`) and what it answers. The request types are the ones the server's zod
 * schemas are declared to satisfy, the answers the ones its handlers are declared to return, so
 * a client typed by this map (the panel's `api/client.ts`) and the server cannot drift apart.
 */
export interface AdminRoutes {
  'GET /session': { response: SessionView };
  'POST /session': { body: SignInRequest; response: SessionView };
  'DELETE /session': { response: void };
  'GET /policies': { response: PolicyList };
  'GET /policies/:name': { response: PolicyView };
  'PUT /policies/:name': { body: PolicyWriteRequest; response: PolicyView };
  'DELETE /policies/:name': { body: ChangeNoteRequest; response: PolicyRemovalResult };
  'GET /policies/:name/revisions': { response: PolicyRevisionList };
  'POST /policies/:name/revisions/:v/restore': {
    body: ChangeNoteRequest;
    response: PolicyView;
  };
  'GET /policies/:name/candidate': { response: CandidateComparison };
  'POST /policies/:name/candidate': { body: CandidateProposal; response: CandidateView };
  'DELETE /policies/:name/candidate': { body: ChangeNoteRequest; response: { discarded: true } };
  'POST /policies/:name/candidate/promote': { body: CandidatePromotion; response: PolicyView };
  'GET /enforcement': { response: EnforcementState };
  'PUT /enforcement': { body: EnforcementRequest; response: EnforcementState };
  'GET /routes': { response: RouteList };
  'GET /instances': { response: InstanceList };
  'GET /inspect/:policy/:identifier': { response: InspectResult };
  'DELETE /counters/:policy/:identifier': {
    query: CounterResetQuery;
    response: CounterResetResult;
  };
  'GET /blocked': { query: BlockedQuery; response: BlockedList };
  'POST /blocked': { body: BlockRequest; response: BlockResult };
  'DELETE /blocked/:policy/:identifier': { query: UnblockQuery; response: UnblockResult };
  'GET /identifiers': { query: IdentifiersQuery; response: IdentifierList };
  'GET /penalties': { query: PenaltyQuery; response: PenaltyPage };
  'GET /audit': { query: AuditQuery; response: AuditPage };
  'GET /stats': { query: StatsQuery; response: StatsSeries };
}

/** A route of the admin API, as `METHOD /path/:param`. */
export type AdminRoute = keyof AdminRoutes;

/** Every AdminRoutes key, at run time: what a client or a test can enumerate. */
export const ADMIN_ROUTES = [
  'GET /session',
  'POST /session',
  'DELETE /session',
  'GET /policies',
  'GET /policies/:name',
  'PUT /policies/:name',
  'DELETE /policies/:name',
  'GET /policies/:name/revisions',
  'POST /policies/:name/revisions/:v/restore',
  'GET /policies/:name/candidate',
  'POST /policies/:name/candidate',
  'DELETE /policies/:name/candidate',
  'POST /policies/:name/candidate/promote',
  'GET /enforcement',
  'PUT /enforcement',
  'GET /routes',
  'GET /instances',
  'GET /inspect/:policy/:identifier',
  'DELETE /counters/:policy/:identifier',
  'GET /blocked',
  'POST /blocked',
  'DELETE /blocked/:policy/:identifier',
  'GET /identifiers',
  'GET /penalties',
  'GET /audit',
  'GET /stats',
] as const satisfies readonly AdminRoute[];

// Both ways: a route in the map but not in the list fails to compile here.
type Unlisted = Exclude<AdminRoute, (typeof ADMIN_ROUTES)[number]>;
export type AdminRoutesListed = [Unlisted] extends [never] ? true : Unlisted;
