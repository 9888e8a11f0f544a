/**
 * The load generator's process: runs each LoadRequest the harness sends over IPC (autocannon, or
 * the paced client for a fixed rate) and answers with a LoadResult, so the load never shares an
 * event loop with the harness or the app.
 */
import autocannon, { type Request } from 'autocannon';
import type { LoadRequest, LoadResult } from './load.types.js';
import { pacedLoad } from './paced.load.js';

function cyclingUsers(users: NonNullable<LoadRequest['users']>): Request['setupRequest'] {
  let next = users.first ?? 0;
  return (request) => {
    request.headers = { ...request.headers, [users.header]: `${users.prefix}${next}` };
    next = (next + 1) % users.count;
    return request;
  };
}

async function run(load: LoadRequest): Promise<LoadResult> {
  if (load.rate !== undefined) return pacedLoad({ ...load, rate: load.rate });
  const setupRequest = load.users !== undefined ? cyclingUsers(load.users) : undefined;
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    ...(load.amount !== undefined ? { amount: load.amount } : { duration: load.durationS ?? 1 }),
    timeout: 10,
    requests: [{ method: 'GET', path: load.path, ...(setupRequest ? { setupRequest } : {}) }],
  });
  const byStatus = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]),
  );
  const requests = Object.values(byStatus).reduce((sum, count) => sum + count, 0);
  return {
    requests,
    seconds: result.duration,
    perSecond: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    byStatus,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

process.on('message', (message: LoadRequest) => {
  run(message).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.send?.({ ready: true });
