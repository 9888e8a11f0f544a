// A TCP proxy on loopback that a test places between an app and Redis or PostgreSQL, to cut,
// stall, reset or slow the link on demand while both ends keep running.
import { once } from 'node:events';
import { connect, createServer, isIP, type AddressInfo, type Server } from 'node:net';
import { ProxiedConnection } from './fault-proxy.connection.js';

const HOST = '127.0.0.1';
const MAX_DELAY_MS = 60_000;
const MAX_CONNECTIONS = 256;

/**
 * - `pass`: forward both ways.
 * - `drop`: close every open connection and refuse new ones (nothing listens on the port).
 * - `blackhole`: accept and keep connections, forward nothing either way (a silent partition).
 * - `reset`: RST every open connection and every new one.
 * - `{ delayMs }`: forward both ways, each chunk delayMs late, in order.
 */
export type FaultMode = 'pass' | 'drop' | 'blackhole' | 'reset' | { readonly delayMs: number };

export interface FaultProxyOptions {
  /** Where connections are forwarded: a loopback address. */
  readonly target: { readonly host: string; readonly port: number };
}

export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's, e.g. for DATABASE_URL. */
  url(url: string): string;
  /** Switches mode; resolves once the new mode holds for open and new connections. */
  mode(mode: FaultMode): Promise<void>;
  /** Connections open through the proxy right now. */
  readonly openConnections: number;
  /** Connections the proxy accepted since it started. */
  readonly acceptedConnections: number;
  /** Closes the port and every connection. */
  stop(): Promise<void>;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function checkedMode(mode: FaultMode): FaultMode {
  if (typeof mode === 'object') {
    const { delayMs } = mode;
    if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
      throw new Error(`delayMs must be an integer from 0 to ${MAX_DELAY_MS}, got ${delayMs}`);
    }
    return { delayMs };
  }
  if (!['pass', 'drop', 'blackhole', 'reset'].includes(mode)) {
    throw new Error(`unknown fault proxy mode ${JSON.stringify(mode)}`);
  }
  return mode;
}

async function listen(server: Server, port: number): Promise<number> {
  server.listen(port, HOST);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error as Error)),
  ]);
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts a proxy on a free loopback port that forwards to `target` (mode `pass`). */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const { host: targetHost, port: targetPort } = options.target;
  if (!isLoopback(targetHost)) {
    throw new Error(`the fault proxy forwards to loopback only, not ${targetHost}`);
  }
  let current: FaultMode = 'pass';
  let accepted = 0;
  let stopped = false;
  const connections = new Set<ProxiedConnection>();

  const server = createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    // Nothing is read until the upstream side is connected and the mode allows it.
    client.pause();
    if (current === 'reset' || connections.size >= MAX_CONNECTIONS) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort });
    const connection = new ProxiedConnection(
      client,
      upstream,
      () => current,
      () => connections.delete(connection),
    );
    connections.add(connection);
    // A blackhole also swallows the upstream handshake: the client hears nothing back.
    upstream.once('connect', () => connection.refresh());
  });
  let port = await listen(server, 0);

  const mode = async (next: FaultMode): Promise<void> => {
    if (stopped) throw new Error('the fault proxy is stopped');
    const previous = current;
    current = checkedMode(next);
    if (current === 'drop') {
      for (const connection of connections) connection.destroy();
      if (server.listening) await close(server);
      return;
    }
    if (current === 'reset') {
      for (const connection of connections) connection.reset();
    }
    if (previous === 'drop' && !server.listening) {
      // Same port, so the URL the app was given points at the proxy again.
      port = await listen(server, port);
    }
    for (const connection of connections) connection.refresh();
  };

  return {
    host: HOST,
    get port() {
      return port;
    },
    url(url: string): string {
      const parsed = new URL(url);
      parsed.hostname = HOST;
      parsed.port = String(port);
      return parsed.toString();
    },
    mode,
    get openConnections() {
      return connections.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      for (const connection of connections) connection.destroy();
      if (server.listening) await close(server);
    },
  };
}
