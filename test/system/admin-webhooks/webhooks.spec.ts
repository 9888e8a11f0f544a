import type { PenaltyEvent } from '@sluice/nest';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminClient, eventually } from '../admin-api/admin.client.js';
import { penaltiesApp } from '../admin-penalties/app.module.js';
import { ADAPTERS, startApp, uniquePrefix, type RunningApp } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

afterAll(closeAll);

const SECRET = 'webhook-secret-for-the-e2e-test';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

describe.each(ADAPTERS)('penalty webhooks on %s', (adapter) => {
  let database: TestDatabase;
  let app: RunningApp;
  let receiver: Server;
  const deliveries: Delivery[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    database = await createTestDatabase();
    app = await startApp(
      adapter,
      penaltiesApp({
        redisUrl: inject('redisUrl'),
        prefix: uniquePrefix('admin-webhooks'),
        databaseUrl: database.url,
        webhooks: [
          { url: `http://127.0.0.1:${port}/hooks`, secret: SECRET, events: ['block.escalated'] },
        ],
      }),
    );
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('posts each recorded event of the types asked for, once, signed with the secret', async () => {
    const api = adminClient(`${app.url}/sluice/api`);
    const attempt = () =>
      fetch(`${app.url}/attempt`, { method: 'POST', headers: { 'x-user': 'draco' } });
    expect((await attempt()).status).toBe(201);
    expect((await attempt()).status).toBe(429); // block.started: not asked for
    expect((await api('DELETE', '/blocked/attempts/draco')).status).toBe(200);
    expect((await attempt()).status).toBe(429); // block.escalated
    await eventually(() => deliveries.length >= 1, 5_000);
    // Waits for I/O, not time: a delivery of the unasked event would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries as [Delivery];
    const event = JSON.parse(delivery.body) as PenaltyEvent;
    expect(event).toMatchObject({ type: 'block.escalated', identifier: 'draco', offence: 2 });
    expect(delivery.headers['sluice-event']).toBe('block.escalated');
    expect(delivery.headers['sluice-delivery']).toBe(event.id);
    const expected = createHmac('sha256', SECRET).update(delivery.body).digest('hex');
    expect(delivery.headers['sluice-signature']).toBe(`sha256=${expected}`);
  });
});
