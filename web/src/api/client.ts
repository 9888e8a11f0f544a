import type {
  AdminErrorBody,
  AuditPage,
  AuditQuery,
  BlockRequest,
  BlockResult,
  BlockedList,
  CandidateComparison,
  CandidatePromotion,
  CandidateProposal,
  CandidateView,
  ChangeNoteRequest,
  CounterResetResult,
  EnforcementRequest,
  EnforcementState,
  IdentifierList,
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
  StatsSeries,
  UnblockResult,
} from '@sluice/admin/api';
import { API_BASE } from './panel-base';

export { API_BASE };


type Query = Record<string, string | number | undefined | null>;

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

const segment = (value: string) => encodeURIComponent(value);

async function request<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { query?: Query; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Requested-With': 'sluice',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(apiUrl(path, options.query), {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (response.status === 204) return undefined as T;
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body as AdminErrorBody | null);
  return body as T;
}

/** Every admin route the panel calls, typed with the server's own request and response types. */
export const api = {
  session: {
    current: () => request<SessionView>('GET', '/session'),
    signIn: (body: SignInRequest) => request<SessionView>('POST', '/session', { body }),
    signOut: () => request<void>('DELETE', '/session'),
  },
  policies: {
    list: () => request<PolicyList>('GET', '/policies'),
    get: (name: string) => request<PolicyView>('GET', `/policies/${segment(name)}`),
    put: (name: string, body: PolicyWriteRequest) =>
      request<PolicyView>('PUT', `/policies/${segment(name)}`, { body }),
    remove: (name: string, body: ChangeNoteRequest = {}) =>
      request<PolicyRemovalResult>('DELETE', `/policies/${segment(name)}`, { body }),
    revisions: (name: string) =>
      request<PolicyRevisionList>('GET', `/policies/${segment(name)}/revisions`),
    candidate: {
      get: (name: string) =>
        request<CandidateComparison>('GET', `/policies/${segment(name)}/candidate`),
      propose: (name: string, body: CandidateProposal) =>
        request<CandidateView>('POST', `/policies/${segment(name)}/candidate`, { body }),
      discard: (name: string, body: ChangeNoteRequest = {}) =>
        request<{ discarded: true }>('DELETE', `/policies/${segment(name)}/candidate`, { body }),
      promote: (name: string, body: CandidatePromotion = {}) =>
        request<PolicyView>('POST', `/policies/${segment(name)}/candidate/promote`, { body }),
    },
    restore: (name: string, version: number, body: ChangeNoteRequest = {}) =>
      request<PolicyView>('POST', `/policies/${segment(name)}/revisions/${version}/restore`, {
        body,
      }),
  },
  enforcement: {
    get: () => request<EnforcementState>('GET', '/enforcement'),
    set: (body: EnforcementRequest) => request<EnforcementState>('PUT', '/enforcement', { body }),
  },
  routes: () => request<RouteList>('GET', '/routes'),
  instances: () => request<InstanceList>('GET', '/instances'),
  inspect: (policy: string, identifier: string) =>
    request<InspectResult>('GET', `/inspect/${segment(policy)}/${segment(identifier)}`),
  /** `key`: the stored key of an identifier shown cut (over 256 characters). */
  resetCounters: (policy: string, identifier: string, query: { key?: string } = {}) =>
    request<CounterResetResult>('DELETE', `/counters/${segment(policy)}/${segment(identifier)}`, {
      query,
    }),
  blocked: {
    list: (query: { policy?: string; q?: string; limit?: number } = {}) =>
      request<BlockedList>('GET', '/blocked', { query }),
    block: (body: BlockRequest) => request<BlockResult>('POST', '/blocked', { body }),
    unblock: (
      policy: string,
      identifier: string,
      query: { keyKind?: string; reason?: string; forgetOffences?: 'true'; key?: string } = {},
    ) =>
      request<UnblockResult>('DELETE', `/blocked/${segment(policy)}/${segment(identifier)}`, {
        query,
      }),
  },
  identifiers: (query: { policy?: string; q?: string; limit?: number } = {}) =>
    request<IdentifierList>('GET', '/identifiers', { query }),
  penalties: (query: PenaltyQuery = {}) => request<PenaltyPage>('GET', '/penalties', { query }),
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
  audit: (query: AuditQuery = {}) => request<AuditPage>('GET', '/audit', { query }),
  stats: (query: { seconds?: number; minutes?: number; hours?: number; policy?: string }) =>
    request<StatsSeries>('GET', '/stats', { query }),
};

/** The Server-Sent Events stream of live counters and instances (see AdminEventMap). */
export const EVENTS_URL = apiUrl('/events');
