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
  QuotaGrantAnswer,
  QuotaGrantRequest,
  QuotaQuery,
  QuotaState,
  ListEntryList,
  ListEntryRemoval,
  ListEntryModeChange,
  ListEntryQuery,
  ListEntryRequest,
  ListEntryView,
  PenaltyPage,
  PenaltyQuery,
  PolicyList,
  PolicyRemovalResult,
  PolicyRevisionList,
  PolicyView,
  PlanAssignmentRequest,
  PlanQuery,
  PlanView,
  PolicyWriteQuery,
  PolicyWriteRequest,
  ProfileQuery,
  RecommendationQuery,
  RecommendationView,
  ReplayRequest,
  ReplayView,
  RouteList,
  SessionView,
  SignInRequest,
  StatsQuery,
  StatsSeries,
  TrafficProfileView,
  UnblockQuery,
  UnblockResult,
} from './admin-api.types.js';
import type {
  PolicyFileApplyRequest,
  PolicyFileApplyResult,
  PolicyFileDiffRequest,
  PolicyFileExport,
  PolicyFilePlan,
  PolicyFileQuery,
} from './policy-file.types.js';

/**
 * Every JSON route of the admin API under `/<path>/api`: what it takes (path parameters in the
 * key, `query`, `body`) and what it answers. The request types are the ones the server's zod
 * schemas are declared to satisfy, the answers the ones its handlers are declared to return, so
 * a client typed by this map (the panel's `api/client.ts`) and the server cannot drift apart.
 */
export interface AdminRoutes {
  /** Who is signed in (401 when no one). */
  'GET /session': { response: SessionView };
  /** Signs in with a credential's name and token; sets the session cookie. */
  'POST /session': { body: SignInRequest; response: SessionView };
  /** Signs out, on every instance. */
  'DELETE /session': { response: void };
  /** Every stored policy, the global version and the switch. */
  'GET /policies': { response: PolicyList };
  /** One policy. */
  'GET /policies/:name': { response: PolicyView };
  /** Creates or replaces a policy (version 0 creates; a stale version answers 409). */
  'PUT /policies/:name': {
    query: PolicyWriteQuery;
    body: PolicyWriteRequest;
    response: PolicyView;
  };
  /** Deletes a policy, or returns it to its code default. */
  'DELETE /policies/:name': { body: ChangeNoteRequest; response: PolicyRemovalResult };
  /** A policy's stored revisions, newest first. */
  'GET /policies/:name/revisions': { response: PolicyRevisionList };
  /** Makes revision `v` the policy again, as a new version. */
  'POST /policies/:name/revisions/:v/restore': {
    body: ChangeNoteRequest;
    response: PolicyView;
  };
  /** The shadow candidate and how it compares with the live policy. */
  'GET /policies/:name/candidate': { response: CandidateComparison };
  /** Proposes a revision to run as a shadow candidate. */
  'POST /policies/:name/candidate': { body: CandidateProposal; response: CandidateView };
  /** Discards the candidate. */
  'DELETE /policies/:name/candidate': {
    body: ChangeNoteRequest;
    response: {
      /** Always true: the candidate is gone. */
      discarded: true;
    };
  };
  /** Makes the candidate the live policy. */
  'POST /policies/:name/candidate/promote': { body: CandidatePromotion; response: PolicyView };
  /** Whether policies are enforced. */
  'GET /enforcement': { response: EnforcementState };
  /** Turns enforcement of every policy on or off. */
  'PUT /enforcement': { body: EnforcementRequest; response: EnforcementState };
  /** The app's throttled and skipped handlers. */
  'GET /routes': { response: RouteList };
  /** The instances and the policy version each enforces. */
  'GET /instances': { response: InstanceList };
  /** What the identifier's next request would get, nothing charged. */
  'GET /inspect/:policy/:identifier': { response: InspectResult };
  /** Forgets an identifier's counters (and, if asked, its offences). */
  'DELETE /counters/:policy/:identifier': {
    query: CounterResetQuery;
    response: CounterResetResult;
  };
  /** The blocks in force now. */
  'GET /blocked': { query: BlockedQuery; response: BlockedList };
  /** Blocks an identifier by hand. */
  'POST /blocked': { body: BlockRequest; response: BlockResult };
  /** Lifts a block. */
  'DELETE /blocked/:policy/:identifier': { query: UnblockQuery; response: UnblockResult };
  /** The allow and deny list entries, with what each matched. */
  'GET /lists': { response: ListEntryList };
  /** Adds an allow or deny list entry, on every instance within a second. */
  'POST /lists': { query: ListEntryQuery; body: ListEntryRequest; response: ListEntryView };
  /** Switches a list entry between shadow and enforce in place, its counts kept. */
  'PATCH /lists/:id': { query: ListEntryQuery; body: ListEntryModeChange; response: ListEntryView };
  /** Removes a list entry. */
  'DELETE /lists/:id': { body: ChangeNoteRequest; response: ListEntryRemoval };
  /** Every policy and list entry as one policy file (`npx sluice export`). */
  'GET /policy-file': { query: PolicyFileQuery; response: PolicyFileExport };
  /** What applying a policy file would change (`npx sluice diff`). */
  'POST /policy-file/diff': { body: PolicyFileDiffRequest; response: PolicyFilePlan };
  /** Applies a policy file in one versioned step (`npx sluice apply`). */
  'POST /policy-file/apply': { body: PolicyFileApplyRequest; response: PolicyFileApplyResult };
  /** The identifiers seen over the last day, the most rejected first. */
  'GET /identifiers': { query: IdentifiersQuery; response: IdentifierList };
  /** Requests per identifier per window of the policy's period over the last hour, day or week. */
  'GET /policies/:name/profile': { query: ProfileQuery; response: TrafficProfileView };
  /** A limit read from the profile for a percentile and headroom, and what it would refuse. */
  'GET /policies/:name/recommendation': {
    query: RecommendationQuery;
    response: RecommendationView;
  };
  /** The policy's recorded requests replayed through a rule, beside what the live rule did. */
  'POST /policies/:name/replay': { body: ReplayRequest; response: ReplayView };
  /** An identifier's quota in the current period: used, remaining, credits, when it resets. */
  'GET /quotas/:policy/:identifier': { query: QuotaQuery; response: QuotaState };
  /** An identifier's plan: its tier under every tiered policy, and its last change. */
  'GET /plans/:identifier': { query: PlanQuery; response: PlanView };
  /** Moves an identifier to a tier under every policy that has it, in one audited version. */
  'PUT /plans/:identifier': { body: PlanAssignmentRequest; response: PlanView };
  /** Takes an identifier off any tier its overrides assign, in one audited version. */
  'DELETE /plans/:identifier': { query: PlanQuery; response: PlanView };
  /** Credits (or debits) an identifier's quota for the current period, audited with its note. */
  'POST /quotas/:policy/:identifier/grant': { body: QuotaGrantRequest; response: QuotaGrantAnswer };
  /** The penalty history, newest first. */
  'GET /penalties': { query: PenaltyQuery; response: PenaltyPage };
  /** The audit of every write, newest first. */
  'GET /audit': { query: AuditQuery; response: AuditPage };
  /** Decisions per second, minute or hour, summed over every instance. */
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
  'GET /lists',
  'POST /lists',
  'PATCH /lists/:id',
  'DELETE /lists/:id',
  'GET /policy-file',
  'POST /policy-file/diff',
  'POST /policy-file/apply',
  'GET /identifiers',
  'GET /policies/:name/profile',
  'GET /policies/:name/recommendation',
  'POST /policies/:name/replay',
  'GET /quotas/:policy/:identifier',
  'GET /plans/:identifier',
  'PUT /plans/:identifier',
  'DELETE /plans/:identifier',
  'POST /quotas/:policy/:identifier/grant',
  'GET /penalties',
  'GET /audit',
  'GET /stats',
] as const satisfies readonly AdminRoute[];

/**
 * `true` when ADMIN_ROUTES lists every route of AdminRoutes, else the routes it misses: the docs
 * test assigns `true` to it, so a route in the map but not in the list fails to compile.
 */
export type AdminRoutesListed = [Exclude<AdminRoute, (typeof ADMIN_ROUTES)[number]>] extends [never]
  ? true
  : Exclude<AdminRoute, (typeof ADMIN_ROUTES)[number]>;
