import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { keepPeerAddresses } from './peer-address.keeper.js';

/** The address a request's socket reports once its client has reset the connection. */
async function addressAfterReset(keep: boolean): Promise<string | undefined> {
  const server = createServer();
  if (keep) keepPeerAddresses(server);
  const seen = new Promise<string | undefined>((resolve) => {
    server.on('request', (request: IncomingMessage) => {
      // Read only once the client is gone, as a guard behind slow middleware would.
      request.socket.once('close', () => resolve(request.socket.remoteAddress));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  // Give the server the request before the reset.
  await new Promise((resolve) => server.once('request', resolve));
  client.resetAndDestroy();
  try {
    return await seen;
  } finally {
    server.close();
  }
}

describe('keepPeerAddresses', () => {
  it("keeps a request's client address after the client reset the connection", async () => {
    expect(await addressAfterReset(true)).toBe('127.0.0.1');
    // Without it, Node has no address to give once the connection is gone.
    expect(await addressAfterReset(false)).toBeUndefined();
  });
});
