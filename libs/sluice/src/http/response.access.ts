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

/**
 * Calls back once when the response is done: sent (with its status), or its connection closed
 * before (an aborted client: status 0). False, and never called, without a response to watch.
 */
export function onEnded(res: unknown, listener: (statusCode: number) => void): boolean {
  const raw = (res as { raw?: unknown } | undefined)?.raw ?? res;
  if (typeof (raw as Partial<Finishing> | undefined)?.once !== 'function') return false;
  const ending = raw as Finishing & { once(event: 'close', listener: () => void): unknown };
  let ended = false;
  const end = (statusCode: number) => {
    if (ended) return;
    ended = true;
    listener(statusCode);
  };
  ending.once('finish', () => end(ending.statusCode));
  ending.once('close', () => end(0));
  return true;
}

export function userAgentOf(req: unknown): string | undefined {
  const headers = (req as { headers?: Record<string, unknown> } | undefined)?.headers;
  const userAgent = headers?.['user-agent'];
  return typeof userAgent === 'string' ? userAgent : undefined;
}
