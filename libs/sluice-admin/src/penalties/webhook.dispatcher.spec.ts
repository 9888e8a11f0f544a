import type { PenaltyEvent } from '@sluice/nest/internals';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { PenaltyWebhook } from '../config/sluice-admin-options.interface.js';
import { resolveWebhooks } from './webhook-options.schema.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';
import type { RetryTimer, WebhookTiming } from './webhook.timing.js';

const SECRET = 'a-secret-of-some-length';
const TIMING: WebhookTiming = { firstRetryMs: 20, maxRetryMs: 100, attempts: 4 };

/** A retry timer the test runs by hand: each retry waits in `due` with the delay it asked for. */
function manualRetries(): { timer: RetryTimer; delays: number[]; due: (() => void)[] } {
  const delays: number[] = [];
  const due: (() => void)[] = [];
  const timer: RetryTimer = (retry, delayMs) => {
    delays.push(delayMs);
    let cancelled = false;
    due.push(() => {
      if (!cancelled) retry();
    });
    return () => {
      cancelled = true;
    };
  };
  return { timer, delays, due };
}

/** What the receiver does with its n-th request (from 1): answer with a status, hang, or hang up. */
type Answer = number | 'hang' | 'drop';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  status: number | undefined;
}

interface Receiver {
  url: string;
  received: Received[];
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function receiver(answer: (n: number) => Answer): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = answer(received.length + 1);
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
        status: typeof reply === 'number' ? reply : undefined,
      });
      if (reply === 'drop') req.socket.destroy();
      else if (reply !== 'hang') res.writeHead(reply).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received };
}

function dispatcher(webhooks: PenaltyWebhook[], retryTimer?: RetryTimer): WebhookDispatcher {
  const created = new WebhookDispatcher(
    { database: 'postgres://unused/db', penalties: { webhooks } },
    { ...TIMING, retryTimer },
  );
  cleanups.push(() => created.onApplicationShutdown());
  return created;
}

let sequence = 0;
function penaltyEvent(type: PenaltyEvent['type'] = 'block.started'): PenaltyEvent {
  sequence++;
  return {
    id: `event-${sequence}`,
    type,
    occurredAt: 1_800_000_000_000,
    policy: 'login',
    policyVersion: 3,
    keyKind: 'ip',
    identifier: '203.0.113.7',
    offence: type === 'block.started' ? 1 : 0,
    startedAt: type === 'block.lifted' ? null : 1_800_000_000_000,
    expiresAt: 1_800_000_060_000,
    trigger:
      type === 'block.started'
        ? { count: 12, limit: 10, windowMs: 60_000, algorithm: 'gcra' }
        : null,
    actor: type === 'block.lifted' ? 'ops@example.com' : null,
    reason: type === 'block.lifted' ? 'false positive' : null,
    instanceId: 'instance-a',
    route: 'AuthController.login',
  };
}

/** Polls for deliveries over loopback HTTP: it waits for I/O, not for time to pass. */
async function eventually(probe: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await sleep(20);
  }
}

const acknowledged = (received: Received[]): number =>
  received.filter(({ status }) => status !== undefined && status >= 200 && status < 300).length;

describe('WebhookDispatcher', () => {
  it('signs every delivery', async () => {
    const { url, received } = await receiver(() => 204);
    const event = penaltyEvent();
    dispatcher([{ url: `${url}/hook?source=sluice`, secret: SECRET }]).send(event);

    await eventually(() => received.length === 1, 2_000);
    const [request] = received;
    const expected = createHmac('sha256', SECRET).update(request!.body).digest('hex');
    expect(request).toMatchObject({ method: 'POST', path: '/hook?source=sluice' });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'sluice-event': 'block.started',
      'sluice-delivery': event.id,
      'sluice-signature': `sha256=${expected}`,
    });
    expect(JSON.parse(request!.body)).toEqual(event);
  });

  it('sends only the event types a webhook asks for', async () => {
    const { url, received } = await receiver(() => 200);
    const webhooks = dispatcher([
      { url: `${url}/all`, secret: SECRET },
      { url: `${url}/lifted`, secret: SECRET, events: ['block.lifted'] },
    ]);
    webhooks.send(penaltyEvent('block.started'));
    webhooks.send(penaltyEvent('block.lifted'));

    await eventually(() => received.length >= 3, 2_000);
    // Waits for I/O, not time: a delivery too many would have reached the loopback server by now.
    await sleep(100);
    const seen = received.map(({ path, headers }) => `${path} ${String(headers['sluice-event'])}`);
    expect(seen.sort()).toEqual([
      '/all block.lifted',
      '/all block.started',
      '/lifted block.lifted',
    ]);
  });

  it('retries with growing backoff after a 500 and a dropped connection, then succeeds', async () => {
    const answers: Answer[] = [500, 'drop', 200];
    const { url, received } = await receiver((n) => answers[n - 1] ?? 200);
    const retries = manualRetries();
    const event = penaltyEvent();
    dispatcher([{ url, secret: SECRET }], retries.timer).send(event);

    // Each failure asks for one retry; nothing is sent again until the test runs it.
    for (const attempt of [1, 2]) {
      await eventually(() => retries.due.length === attempt, 2_000);
      expect(received).toHaveLength(attempt);
      retries.due[attempt - 1]!();
    }
    await eventually(() => received.length === 3, 2_000);
    // Waits for I/O, not time: a delivery too many would have reached the loopback server by now.
    await sleep(50);
    expect(received).toHaveLength(3);
    expect(acknowledged(received)).toBe(1);
    expect(new Set(received.map(({ headers }) => headers['sluice-delivery']))).toEqual(
      new Set([event.id]),
    );
    // 20 ms then 40 ms: a fixed delay would not double.
    expect(retries.delays).toEqual([TIMING.firstRetryMs, 2 * TIMING.firstRetryMs]);
  });

  it('gives up after the configured attempts', async () => {
    const { url, received } = await receiver(() => 503);
    const retries = manualRetries();
    dispatcher([{ url, secret: SECRET }], retries.timer).send(penaltyEvent());

    for (let attempt = 1; attempt < TIMING.attempts; attempt++) {
      await eventually(() => retries.due.length === attempt, 2_000);
      retries.due[attempt - 1]!();
    }
    await eventually(() => received.length === TIMING.attempts, 2_000);
    // Waits for I/O, not time: a delivery too many would have reached the loopback server by now.
    await sleep(50);
    expect(received).toHaveLength(TIMING.attempts);
    expect(acknowledged(received)).toBe(0);
    // The fourth failure is the last try: it asks for no retry.
    expect(retries.delays).toEqual([20, 40, 80]);
  });

  it('caps the backoff at maxRetryMs', async () => {
    const { url } = await receiver(() => 503);
    const retries = manualRetries();
    const webhooks = new WebhookDispatcher(
      { database: 'postgres://unused/db', penalties: { webhooks: [{ url, secret: SECRET }] } },
      { firstRetryMs: 20, maxRetryMs: 50, attempts: 5, retryTimer: retries.timer },
    );
    cleanups.push(() => webhooks.onApplicationShutdown());
    webhooks.send(penaltyEvent());
    for (let attempt = 1; attempt < 5; attempt++) {
      await eventually(() => retries.due.length === attempt, 2_000);
      retries.due[attempt - 1]!();
    }
    expect(retries.delays).toEqual([20, 40, 50, 50]);
  });

  it('returns from send at once while the endpoint hangs', async () => {
    const { url, received } = await receiver(() => 'hang');
    const webhooks = dispatcher([{ url, secret: SECRET }]);
    webhooks.send(penaltyEvent());
    await eventually(() => received.length === 1, 2_000);

    // send only queues: it returns nothing to wait for, and the request leaves on a later turn.
    const returned: unknown = webhooks.send(penaltyEvent());
    expect(returned).toBeUndefined();
    expect(received).toHaveLength(1);
    await eventually(() => received.length === 2, 2_000);
  });

  it('keeps at most 4 requests open to one webhook', async () => {
    const { url, received } = await receiver(() => 'hang');
    const webhooks = dispatcher([{ url, secret: SECRET }]);
    for (let n = 0; n < 10; n++) webhooks.send(penaltyEvent());

    await eventually(() => received.length >= 4, 2_000);
    // Waits for I/O, not time: a delivery too many would have reached the loopback server by now.
    await sleep(100);
    expect(received).toHaveLength(4);
  });

  it('waits at most about 2 s on shutdown for a delivery that hangs', async () => {
    const { url, received } = await receiver(() => 'hang');
    const webhooks = dispatcher([{ url, secret: SECRET }]);
    webhooks.send(penaltyEvent());
    await eventually(() => received.length === 1, 2_000);

    const started = performance.now();
    await webhooks.onApplicationShutdown();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('resolveWebhooks', () => {
  const OPTION = 'SluiceAdminModule options.penalties.webhooks';
  const URL_RULE =
    'must be an http:// or https:// URL of at most 2048 characters, without credentials';

  it('resolves nothing to no webhooks and defaults events to all', () => {
    expect(resolveWebhooks(undefined)).toEqual([]);
    const [webhook] = resolveWebhooks([{ url: 'https://hooks.example.com/x', secret: SECRET }]);
    expect(webhook!.url.href).toBe('https://hooks.example.com/x');
    expect([...webhook!.events]).toEqual([
      'block.started',
      'block.escalated',
      'block.manual',
      'block.lifted',
    ]);
  });

  it('names every bad field', () => {
    expect(() =>
      resolveWebhooks([
        { url: 'ftp://hooks.example.com/x', secret: SECRET },
        { url: 'https://hooks.example.com/x', secret: 'short' },
        { url: 'https://hooks.example.com/x', secret: SECRET, events: ['block.ended'] },
        { url: 'https://hooks.example.com/x', secret: SECRET, retries: 3 },
        { url: 'https://user:password@hooks.example.com/x', secret: SECRET },
      ]),
    ).toThrow(
      `${OPTION}.0.url: ${URL_RULE}; ` +
        `${OPTION}.1.secret: must be a string of 16 to 512 characters; ` +
        `${OPTION}.2.events.0: must be one of block.started, block.escalated, block.manual, block.lifted; ` +
        `${OPTION}.3.retries: is not an option; ` +
        `${OPTION}.4.url: ${URL_RULE}`,
    );
  });

  it('refuses repeated event types and more than 20 webhooks', () => {
    const hook = { url: 'https://hooks.example.com/x', secret: SECRET };
    expect(() => resolveWebhooks([{ ...hook, events: ['block.lifted', 'block.lifted'] }])).toThrow(
      `${OPTION}.0.events: must not repeat an event type`,
    );
    expect(() => resolveWebhooks(Array.from({ length: 21 }, () => hook))).toThrow(
      `${OPTION}: must be an array of at most 20 webhooks`,
    );
  });

  it('never echoes a secret', () => {
    expect(() => resolveWebhooks([{ url: 'nope', secret: 'tiny-secret' }])).toThrow(
      /^(?!.*tiny-secret).*webhooks\.0\.url.*webhooks\.0\.secret/,
    );
  });
});
