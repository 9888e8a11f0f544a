import { WsAdapter } from '@nestjs/platform-ws';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ADAPTERS, closeAppsAfterEach, uniquePrefix } from '../../support/nest-app.js';
import { closeAll, connectRedis } from '../../support/redis.clients.js';
import { LIMIT, websocketApp } from './app.module.js';
import { connectChat, type ChatClient, type Message } from './chat.client.js';

const startApp = closeAppsAfterEach();
const sockets: WebSocket[] = [];
// Registered after the apps' afterEach, so it runs before it: the sockets go before their apps.
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});
afterAll(closeAll);

const connect = (url: string, client: string) => connectChat(url, client, sockets);

async function sendTimes(client: ChatClient, event: string, times: number): Promise<Message[]> {
  const answers: Message[] = [];
  for (let i = 0; i < times; i++) answers.push(await client.send(event, `message ${i}`));
  return answers;
}

describe.each(ADAPTERS)('WebSocket gateway under @Throttle on %s', (adapter) => {
  async function start(): Promise<string> {
    const options = { redis: connectRedis(), prefix: uniquePrefix('websocket') };
    const app = await startApp(adapter, websocketApp(options), (nest) =>
      nest.useWebSocketAdapter(new WsAdapter(nest)),
    );
    return app.url;
  }

  it('holds a concurrency slot while a message is handled, and frees it with the answer', async () => {
    const alice = await connect(await start(), 'alice');
    // The client pairs answers with sends as they arrive: the refusal of the second comes first.
    const answers = await Promise.all([
      alice.send('export', { ms: 400 }),
      alice.send('export', { ms: 0 }),
    ]);
    expect(answers[0]).toMatchObject({ event: 'exception', data: { statusCode: 429 } });
    expect(answers[1]).toEqual({ event: 'exported', data: 'after 400 ms' });
    // The slot came back with the answer (the release is one more call: allow it a moment).
    let third = await alice.send('export', { ms: 0 });
    for (let tries = 0; tries < 20 && third.event !== 'exported'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      third = await alice.send('export', { ms: 0 });
    }
    expect(third).toEqual({ event: 'exported', data: 'after 0 ms' });
  });

  it('sends the refusal over the open socket as an exception message', async () => {
    const alice = await connect(await start(), 'alice');
    const answers = await sendTimes(alice, 'reply', LIMIT + 1);
    expect(answers.slice(0, LIMIT)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => ({ event: 'replied', data: `re: message ${i}` })),
    );
    expect(answers[LIMIT]).toMatchObject({
      event: 'exception',
      data: {
        statusCode: 429,
        error: 'Too Many Requests',
        policy: 'ws-reply',
        message: expect.stringMatching(/^Rate limit of policy "ws-reply" exceeded/) as unknown,
      },
    });
    // The connection survived the refusal: another policy's handler still answers on it.
    expect(alice.socket.readyState).toBe(WebSocket.OPEN);
    expect(await alice.send('ping')).toEqual({ event: 'pong', data: 'pong' });
  });

  it("counts by the upgrade request's headers: another client has its own count", async () => {
    const url = await start();
    const alice = await connect(url, 'alice');
    const bob = await connect(url, 'bob');
    expect((await sendTimes(alice, 'reply', LIMIT + 1)).map((m) => m.event)).toEqual([
      ...Array<string>(LIMIT).fill('replied'),
      'exception',
    ]);
    expect((await bob.send('reply', 'hi')).event).toBe('replied');
  });

  it('does not crash under the default guard, which has no response', async () => {
    const alice = await connect(await start(), 'alice');
    const answers = await sendTimes(alice, 'ping', LIMIT + 1);
    expect(answers.slice(0, LIMIT)).toEqual(Array(LIMIT).fill({ event: 'pong', data: 'pong' }));
    // The refusal still reaches the client as the 429 body; the socket stays open.
    expect(answers[LIMIT]).toMatchObject({
      event: 'exception',
      data: { statusCode: 429, error: 'Too Many Requests' },
    });
    expect(await alice.send('reply', 'still here')).toEqual({
      event: 'replied',
      data: 're: still here',
    });
  });
});
