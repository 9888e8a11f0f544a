import { Logger } from '@nestjs/common';
import { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SluiceConnection } from './sluice.connection.js';

// Clients that never connect (lazyConnect): only their settings are read.
const clients: Array<Redis | Cluster> = [];
function lazy<T extends Redis | Cluster>(client: T): T {
  clients.push(client);
  return client;
}

async function warningsFor(redis: Redis | Cluster): Promise<string[]> {
  const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  try {
    await SluiceConnection.open({ redis });
    return warn.mock.calls.map(([message]) => String(message));
  } finally {
    warn.mockRestore();
  }
}

afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

describe('a Redis client passed in', () => {
  it('with ioredis defaults: a warning names the setting that would send a decision twice', async () => {
    const warnings = await warningsFor(lazy(new Redis({ lazyConnect: true })));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('counting it twice: set autoResendUnfulfilledCommands: false');
  });

  it('a Cluster with ioredis defaults: both retryDelayOnFailover and the nodes’ resend', async () => {
    const cluster = lazy(new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true }));
    const warnings = await warningsFor(cluster);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'set retryDelayOnFailover: 0 and redisOptions.autoResendUnfulfilledCommands: false',
    );
  });

  it('with the settings the guide gives: no warning', async () => {
    const redis = lazy(new Redis({ lazyConnect: true, autoResendUnfulfilledCommands: false }));
    const cluster = lazy(
      new Cluster([{ host: '127.0.0.1', port: 1 }], {
        lazyConnect: true,
        retryDelayOnFailover: 0,
        redisOptions: { autoResendUnfulfilledCommands: false },
      }),
    );
    expect(await warningsFor(redis)).toEqual([]);
    expect(await warningsFor(cluster)).toEqual([]);
  });
});
