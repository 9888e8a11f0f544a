import type { Socket } from 'node:net';

/** What keepPeerAddresses needs of an HTTP server: its connections. */
export interface ConnectionSource {
  on(event: 'connection', listener: (socket: Socket) => void): unknown;
}

/**
 * Reads each connection's peer address as it opens. Node looks the address up when first asked
 * and keeps it, but a connection the client has reset by then has none: every such request was
 * counted as the one `unknown` client (docs/guide.md, trackers). Asked here, the address is kept
 * for the guard however soon the client goes. One getpeername call per connection.
 */
export function keepPeerAddresses(server: ConnectionSource): void {
  server.on('connection', (socket) => {
    void socket.remoteAddress;
  });
}
