import type {
  AdminErrorBody,
  AdminRoute,
  AdminRoutes,
  AuditQuery,
  BlockedQuery,
  BlockRequest,
  CandidatePromotion,
  CandidateProposal,
  ChangeNoteRequest,
  CounterResetQuery,
  EnforcementRequest,
  IdentifiersQuery,
  ListEntryModeChange,
  ListEntryRequest,
  PenaltyQuery,
  PlanAssignmentRequest,
  PolicyWriteRequest,
  ProfileQuery,
  QuotaGrantRequest,
  RecommendationQuery,
  ReplayRequest,
  SignInRequest,
  StatsQuery,
  UnblockQuery,
} from '@sluice/admin/api';
import { API_BASE } from './panel-base';

export { API_BASE };


type Query = Record<string, string | number | boolean | undefined | null>;

/** A non-2xx answer: the server's error body, with its field issues when it gave any. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: AdminErrorBody | null,
  ) {
    super(body?.message ?? `The server answered ${status}`);
    this.name = 'ApiError';
  }

  /** The server's message for each field it refused, by dotted path (`penalty.blockMs`). */
  get fieldErrors(): Record<string, string> {
    const errors: Record<string, string> = {};
    for (const issue of this.body?.issues ?? []) errors[issue.field] ??= issue.message;
    return errors;
  }
}

export function apiUrl(path: string, query?: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return `${API_BASE}${path}${text === '' ? '' : `?${text}`}`;
}

/** The names of a route's path parameters: `'name' | 'v'` for `…/:name/revisions/:v/restore`. */
type PathParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

type Part<K extends AdminRoute, F extends string> =
  AdminRoutes[K] extends Record<F, infer T> ? T : never;

/** What a call of route `K` takes: its path parameters, query and body, as the route says. */
type Input<K extends AdminRoute> = ([PathParams<K>] extends [never]
  ? unknown
  : { params: Record<PathParams<K>, string | number> }) &
  ([Part<K, 'query'>] extends [never] ? unknown : { query?: Part<K, 'query'> }) &
  ([Part<K, 'body'>] extends [never] ? unknown : { body?: Part<K, 'body'> });

/**
 * Calls route `K` of the admin API: its method and path come from the route's key, its input and
 * answer from AdminRoutes (`@sluice/admin/api`), so a route and its types are named once.
 */
async function call<K extends AdminRoute>(
  route: K,
  ...[input]: [PathParams<K>] extends [never] ? [Input<K>?] : [Input<K>]
): Promise<AdminRoutes[K]['response']> {
  const [method, template] = route.split(' ') as [string, string];
  const { params, query, body } = (input ?? {}) as {
    params?: Record<string, string | number>;
    query?: Query;
    body?: unknown;
  };
  const path = template.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(String(params?.[name])),
  );
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Requested-With': 'sluice',
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(apiUrl(path, query), {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined;
  const answer: unknown = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer as AdminErrorBody | null);
  // The server's answer, as its handler is declared to return it (AdminRoutes).
  return answer as AdminRoutes[K]['response'];
}

/** Every admin route the panel calls, each typed by AdminRoutes. */
export const api = {
  session: {
    current: () => call('GET /session'),
    signIn: (body: SignInRequest) => call('POST /session', { body }),
    signOut: () => call('DELETE /session'),
  },
  policies: {
    list: () => call('GET /policies'),
    get: (name: string) => call('GET /policies/:name', { params: { name } }),
    /** `confirmReset`: the writer means a change that starts every identifier's count afresh. */
    put: (name: string, body: PolicyWriteRequest, confirmReset = false) =>
      call('PUT /policies/:name', {
        params: { name },
        body,
        query: confirmReset ? { confirm: 'reset' } : {},
      }),
    remove: (name: string, body: ChangeNoteRequest = {}) =>
      call('DELETE /policies/:name', { params: { name }, body }),
    revisions: (name: string) => call('GET /policies/:name/revisions', { params: { name } }),
    profile: (name: string, query: ProfileQuery) =>
      call('GET /policies/:name/profile', { params: { name }, query }),
    recommendation: (name: string, query: RecommendationQuery) =>
      call('GET /policies/:name/recommendation', { params: { name }, query }),
    replay: (name: string, body: ReplayRequest) =>
      call('POST /policies/:name/replay', { params: { name }, body }),
    candidate: {
      get: (name: string) => call('GET /policies/:name/candidate', { params: { name } }),
      propose: (name: string, body: CandidateProposal) =>
        call('POST /policies/:name/candidate', { params: { name }, body }),
      discard: (name: string, body: ChangeNoteRequest = {}) =>
        call('DELETE /policies/:name/candidate', { params: { name }, body }),
      promote: (name: string, body: CandidatePromotion = {}) =>
        call('POST /policies/:name/candidate/promote', { params: { name }, body }),
    },
    restore: (name: string, version: number, body: ChangeNoteRequest = {}) =>
      call('POST /policies/:name/revisions/:v/restore', {
        params: { name, v: version },
        body,
      }),
  },
  enforcement: {
    get: () => call('GET /enforcement'),
    set: (body: EnforcementRequest) => call('PUT /enforcement', { body }),
  },
  lists: {
    list: () => call('GET /lists'),
    /** `confirm`: an admin means an entry that reaches all traffic or its writer. */
    add: (body: ListEntryRequest, confirm = false) =>
      call('POST /lists', { body, query: confirm ? { confirm: 'broad' } : {} }),
    /** Switches an entry between shadow and enforce in place, its counts kept. */
    setMode: (id: string, body: ListEntryModeChange, confirm = false) =>
      call('PATCH /lists/:id', {
        params: { id },
        body,
        query: confirm ? { confirm: 'broad' } : {},
      }),
    remove: (id: string, body: ChangeNoteRequest = {}) =>
      call('DELETE /lists/:id', { params: { id }, body }),
  },
  routes: () => call('GET /routes'),
  instances: () => call('GET /instances'),
  inspect: (policy: string, identifier: string) =>
    call('GET /inspect/:policy/:identifier', { params: { policy, identifier } }),
  /** `key`: the stored key of an identifier shown cut (over 256 characters). */
  resetCounters: (policy: string, identifier: string, query: CounterResetQuery = {}) =>
    call('DELETE /counters/:policy/:identifier', {
      params: { policy, identifier },
      query,
    }),
  quotas: {
    get: (policy: string, identifier: string) =>
      call('GET /quotas/:policy/:identifier', { params: { policy, identifier } }),
    grant: (policy: string, identifier: string, body: QuotaGrantRequest) =>
      call('POST /quotas/:policy/:identifier/grant', { params: { policy, identifier }, body }),
  },
  plans: {
    get: (identifier: string) => call('GET /plans/:identifier', { params: { identifier } }),
    assign: (identifier: string, body: PlanAssignmentRequest) =>
      call('PUT /plans/:identifier', { params: { identifier }, body }),
    remove: (identifier: string) => call('DELETE /plans/:identifier', { params: { identifier } }),
  },
  blocked: {
    list: (query: BlockedQuery = {}) => call('GET /blocked', { query }),
    block: (body: BlockRequest) => call('POST /blocked', { body }),
    unblock: (policy: string, identifier: string, query: UnblockQuery = {}) =>
      call('DELETE /blocked/:policy/:identifier', {
        params: { policy, identifier },
        query,
      }),
  },
  identifiers: (query: IdentifiersQuery = {}) => call('GET /identifiers', { query }),
  penalties: (query: PenaltyQuery = {}) => call('GET /penalties', { query }),
  /** Every penalty matching the filters (no cursor), as the server's CSV. */
  penaltiesCsv: async (query: Omit<PenaltyQuery, 'cursor' | 'limit'> = {}): Promise<Blob> => {
    const response = await fetch(apiUrl('/penalties', query), {
      headers: { Accept: 'text/csv' },
      credentials: 'same-origin',
    });
    if (!response.ok) {
      throw new ApiError(
        response.status,
        (await response.json().catch(() => null)) as AdminErrorBody | null,
      );
    }
    return response.blob();
  },
  audit: (query: AuditQuery = {}) => call('GET /audit', { query }),
  stats: (query: StatsQuery) => call('GET /stats', { query }),
};

/** The Server-Sent Events stream of live counters and instances (see AdminEventMap). */
export const EVENTS_URL = apiUrl('/events');
