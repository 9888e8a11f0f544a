/** What the contender apps and the harness agree on. */

/** The header that names the user in the second key mode. */
export const USER_HEADER = 'x-user';
/** The second key mode cycles over this many users. */
export const USERS = 10_000;
export const userName = (i: number): string => `user-${i}`;

/** Routes of the tiny app: the same handler, counted by client address or by USER_HEADER. */
export const ROUTES = { ip: '/ip', users: '/user' } as const;
export type KeyMode = keyof typeof ROUTES;
export const KEY_MODES = Object.keys(ROUTES) as KeyMode[];

/** Sluice policy names on the two routes. */
export const POLICY_BY_IP = 'by-ip';
export const POLICY_BY_USER = 'by-user';

/** Limits no run comes near, so nothing is refused except in the blocked variants. */
export const UNREACHABLE_LIMIT = 1_000_000_000;
export const UNREACHABLE_PERIOD_MS = 3_600_000;
/** sliding-log keeps one entry per admission: its schema caps the limit, so a short period instead. */
export const SLIDING_LOG_LIMIT = 100_000;
export const SLIDING_LOG_PERIOD_MS = 1_000;
/** The blocked variants: one admission, then refused for longer than any run. */
export const BLOCK_MS = 600_000;

/** The contender prints this line once it listens: `<READY_MARK> <port>`. */
export const READY_MARK = 'bench-contender-ready';
/**
 * On SIGUSR2 the contender prints `<LOOP_MARK> <n> <p50> <p99> <max>`: the n-th such line, its
 * event loop's delay since the last one, ms; then it starts counting afresh.
 */
export const LOOP_MARK = 'bench-contender-loop';
