// HTTP as a client on the network sees it: node:http for ordinary requests (with a chosen source
// address, so one machine can be several clients), a raw socket for bytes no client library sends.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

const REQUEST_TIMEOUT_MS = 10_000;

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body if it is a JSON object, else {}. */
  body: Record<string, unknown>;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is. */
  raw?: string;
  /** Source address, e.g. '127.0.0.2': another client as far as the server can tell. */
  from?: string;
}

export function send(url: string, options: RequestOptions = {}): Promise<Answer> {
  const payload =
    options.json !== undefined ? JSON.stringify(options.json) : (options.raw ?? undefined);
  const headers: Record<string, string> = { ...options.headers };
  if (options.json !== undefined) headers['content-type'] ??= 'application/json';
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers,
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        ...(options.from !== undefined ? { localAddress: options.from } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parse(text) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url} did not answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export interface RawAnswer {
  status: number;
  /** Everything the server sent. */
  text: string;
}

/**
 * Writes bytes to the server as they are and reads the answer until the server closes the
 * connection (so send `Connection: close`).
 */
export function sendRaw(port: number, bytes: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(REQUEST_TIMEOUT_MS, () =>
      socket.destroy(new Error(`port ${port} did not answer in time`)),
    );
    // write, not end: Node's server drops a request still being handled when the client half-closes.
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      if (status === undefined) reject(new Error(`no HTTP answer from port ${port}: ${text}`));
      else resolve({ status: Number(status), text });
    });
  });
}

/** How many answers had each status, e.g. { 201: 5, 429: 15 }. */
export function countStatuses(answers: ReadonlyArray<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** A demo policy as GET /limits describes it. */
export interface DemoPolicy {
  name: string;
  algorithm: string;
  limit: number;
  periodMs: number;
  burst: number | null;
  maxDelayMs: number | null;
  key: string;
  penalty: { blockMs: number; escalation: number; maxBlockMs: number } | null;
}

/** The limits a running demo enforces, by name. */
export async function demoPolicies(url: string): Promise<Record<string, DemoPolicy>> {
  const answer = await send(`${url}/limits`);
  if (answer.status !== 200) throw new Error(`GET /limits answered ${answer.status}`);
  const { policies } = answer.body as { policies: DemoPolicy[] };
  return Object.fromEntries(policies.map((policy) => [policy.name, policy]));
}
