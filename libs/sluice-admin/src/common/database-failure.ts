/** Node socket errors that mean the database cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs for a server that is going away or not taking work: class 08 (connection exception),
 * shutdown, "cannot connect now", too many connections, and a query cancelled by its timeout.
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014)$/;

/** What node-postgres says when a connection dies, or a connect or query outlives its timeout. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/**
 * Whether an error (or one it wraps: TypeORM's `driverError`, an `AggregateError`'s errors, a
 * `cause`) says the policy database is unreachable or too slow, rather than that a query is wrong.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) {
    return true;
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((text) => message.includes(text))) {
    return true;
  }
  const inner: unknown[] = Array.isArray(errors) ? (errors as unknown[]) : [];
  return [driverError, cause, ...inner].some((wrapped) =>
    isDatabaseUnavailable(wrapped, depth + 1),
  );
}
