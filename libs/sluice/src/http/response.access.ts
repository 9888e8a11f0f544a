/**
 * Header and completion access that works on an Express response, a Fastify reply, or nothing
 * (GraphQL and WebSocket contexts may have no response at all).
 */
interface Writable {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
}

interface Finishing {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
}

export function setHeader(res: unknown, name: string, value: string): void {
  if (typeof res !== 'object' || res === null) return;
  const writable = res as Writable;
  if (typeof writable.header === 'function') writable.header(name, value);
  else if (typeof writable.setHeader === 'function') writable.setHeader(name, value);
}

/** Calls back with the status code once the response is sent; never, without a response. */
export function onFinished(res: unknown, listener: (statusCode: number) => void): void {
  const raw = (res as { raw?: unknown } | undefined)?.raw ?? res;
  if (typeof (raw as Partial<Finishing> | undefined)?.once !== 'function') return;
  const finishing = raw as Finishing;
  finishing.once('finish', () => listener(finishing.statusCode));
}

/** A Node response as far as its end is watched: Express's own, or a Fastify reply's `raw`. */
interface Ending extends Finishing {
  once(event: 'finish' | 'close', listener: () => void): unknown;
  end: (...args: unknown[]) => unknown;
  headersSent: boolean;
  writableFinished: boolean;
  destroyed: boolean;
  /** Its request, whose socket a pipelined response waiting its turn does not hold yet. */
  req?: { socket?: { destroyed?: boolean } | null };
}

/**
 * Calls back once when the handler is done with the response: it was sent (with its status); the
 * app ended it after its client had left (Express and Fastify still call `end`; status 0); or its
 * connection closed once the answer had begun (a stream cut short; status 0). A connection that
 * closes while the handler still works (nothing sent yet, even before this is called) waits for
 * the handler's `end`, so what the request holds is held while the handler works
 * (docs/algorithms.md, "Concurrency"). False, and never called, without a response to watch.
 */
export function onEnded(res: unknown, listener: (statusCode: number) => void): boolean {
  const raw = (res as { raw?: unknown } | undefined)?.raw ?? res;
  const candidate = raw as Partial<Ending> | undefined;
  if (typeof candidate?.once !== 'function' || typeof candidate.end !== 'function') return false;
  const ending = raw as Ending;
  let ended = false;
  const end = (statusCode: number) => {
    if (ended) return;
    ended = true;
    listener(statusCode);
  };
  // The client is gone: its connection closed, even under a pipelined response not yet sent.
  const gone = () => ending.destroyed || ending.req?.socket?.destroyed === true;
  const original = ending.end;
  ending.end = function (this: Ending, ...args: unknown[]) {
    // Sent: 'finish' tells the status once it is flushed. Its client gone: nothing will finish.
    const left = gone();
    const result = original.apply(this, args);
    if (left) end(0);
    return result;
  };
  ending.once('finish', () => end(ending.statusCode));
  ending.once('close', () => {
    if (ending.writableFinished) end(ending.statusCode);
    else if (ending.headersSent) end(0);
  });
  // Closed before this was called, while the answer had begun: nothing more will come.
  if (gone() && ending.headersSent && !ending.writableFinished) end(0);
  return true;
}

export function userAgentOf(req: unknown): string | undefined {
  const headers = (req as { headers?: Record<string, unknown> } | undefined)?.headers;
  const userAgent = headers?.['user-agent'];
  return typeof userAgent === 'string' ? userAgent : undefined;
}
