import { once } from 'node:events';
import { WebSocket } from 'ws';

/** A message the chat gateway sends: `{ event, data }`. */
export interface Message {
  event: string;
  data: unknown;
}

/** A client of the chat gateway. */
export interface ChatClient {
  socket: WebSocket;
  /** Sends `{ event, data }` and resolves with the next message the server sends back. */
  send(event: string, data?: unknown): Promise<Message>;
}

/** Connects to the gateway at `url` as `client` (its `x-client` header); `sockets` keeps it. */
export async function connectChat(
  url: string,
  client: string,
  sockets: WebSocket[],
): Promise<ChatClient> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/chat`, {
    headers: { 'x-client': client },
  });
  sockets.push(socket);
  const waiting: Array<(message: Message) => void> = [];
  socket.on('message', (raw: Buffer) => waiting.shift()?.(JSON.parse(raw.toString()) as Message));
  await once(socket, 'open');
  return {
    socket,
    send: (event, data) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        socket.send(JSON.stringify({ event, data }));
      }),
  };
}
