/**
 * Every React Query key the panel uses, in one place. Keys are arrays whose first part names
 * what they hold, so invalidating a prefix (`queryKeys.policies.all`) reaches every key under it.
 */
export const queryKeys = {
  session: ['session'] as const,
  enforcement: ['enforcement'] as const,
  instances: ['instances'] as const,
  lists: ['lists'] as const,
  stats: (seconds: number) => ['stats', seconds] as const,
  /** A stored range (1 h, 24 h, 7 d) of every policy, or of one. */
  statsRange: (range: string, policy: string | undefined) =>
    ['stats', range, policy ?? null] as const,
  policies: {
    all: ['policies'] as const,
    one: (name: string | undefined) => ['policies', name] as const,
    revisions: (name: string) => ['policies', name, 'revisions'] as const,
    candidate: (name: string) => ['policies', name, 'candidate'] as const,
    profile: (name: string, query: { range: string; tier: string | null }) =>
      ['policies', name, 'profile', query] as const,
    recommendation: (name: string, query: Record<string, string | number | null | undefined>) =>
      ['policies', name, 'recommendation', query] as const,
  },
  blocked: {
    all: ['blocked'] as const,
    list: (query: { policy?: string; q?: string }) => ['blocked', query] as const,
    count: (policy: string | undefined) => ['blocked', 'count', policy ?? null] as const,
  },
  identifiers: {
    all: ['identifier'] as const,
    top: ['identifier', 'top'] as const,
    inspect: (identifier: string, policy: string) =>
      ['identifier', identifier, 'inspect', policy] as const,
    traffic: (identifier: string) => ['identifier', identifier, 'traffic'] as const,
    penalties: (identifier: string) => ['identifier', identifier, 'penalties'] as const,
    matches: (text: string) => ['identifier', text, 'matches'] as const,
    quota: (identifier: string, policy: string) =>
      ['identifier', identifier, 'quota', policy] as const,
    plan: (identifier: string) => ['identifier', identifier, 'plan'] as const,
  },
  /** A filtered, paged list (penalties, audit): its screen, the filters and the cursor. */
  pages: (screen: string, query: unknown, cursor: string | undefined) =>
    [screen, query, cursor] as const,
};
