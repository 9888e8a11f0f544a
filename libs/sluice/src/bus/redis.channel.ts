import type { Cluster, Redis } from 'ioredis';
import { parseHeartbeat, type InstanceHeartbeat } from './instance.heartbeat.js';
import type { ChannelListener, ChannelReader, PolicyChannel } from './policy.channel.js';
import {
  decodeSnapshot,
  encodeSnapshot,
  parseNotice,
  parseUnblockNotice,
  parseVersion,
  type ChangeNotice,
  type PolicySnapshot,
  type UnblockNotice,
} from './policy-snapshot.js';

/** Replaces the snapshot only when it is newer, so a slow writer cannot move it backwards. */
const WRITE_SNAPSHOT = `
local stored = tonumber(redis.call('HGET', KEYS[1], '@version') or '0')
if stored >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;

const WRITE_VERSION = `
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if stored >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/**
 * `<prefix>:policies` (hash: the snapshot), `<prefix>:policies:version`, the channel
 * `<prefix>:policies`, and `<prefix>:instances` (hash: heartbeats). Each command touches one key,
 * so a Cluster needs no hash tags here.
 */
export class RedisPolicyChannel implements PolicyChannel {
  private readonly snapshotKey: string;
  private readonly versionKey: string;
  private readonly instancesKey: string;
  private subscriber: Redis | Cluster | undefined;

  constructor(
    private readonly client: Redis | Cluster,
    prefix: string,
    /** Where an operator's reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly operatorClient: () => Redis | Cluster = () => client,
  ) {
    this.snapshotKey = `${prefix}:policies`;
    this.versionKey = `${prefix}:policies:version`;
    this.instancesKey = `${prefix}:instances`;
  }

  private via(reader: ChannelReader): Redis | Cluster {
    return reader === 'operator' ? this.operatorClient() : this.client;
  }

  async read(): Promise<PolicySnapshot | null> {
    return decodeSnapshot(await this.client.hgetall(this.snapshotKey));
  }

  async storedVersion(reader: ChannelReader = 'instance'): Promise<number | null> {
    return parseVersion(await this.via(reader).get(this.versionKey));
  }

  async write(snapshot: PolicySnapshot): Promise<boolean> {
    const fields = Object.entries(encodeSnapshot(snapshot)).flat();
    const version = String(snapshot.version);
    const stored = await this.client.eval(WRITE_SNAPSHOT, 1, this.snapshotKey, version, ...fields);
    await this.client.eval(WRITE_VERSION, 1, this.versionKey, version);
    return stored === 1;
  }

  async announce(notice: ChangeNotice): Promise<void> {
    await this.client.publish(this.snapshotKey, JSON.stringify(notice));
  }

  async announceUnblock(target: UnblockNotice['unblock']): Promise<void> {
    await this.client.publish(this.snapshotKey, JSON.stringify({ unblock: target }));
  }

  /**
   * On a connection of its own (a subscribed connection can run nothing else), which queues its
   * SUBSCRIBE until connected, so an instance started while Redis is down subscribes once it is
   * back. Every (re)connection triggers a re-read: notices sent meanwhile were lost.
   */
  subscribe(listener: ChannelListener): Promise<void> {
    const subscriber = duplicateQueued(this.client);
    this.subscriber = subscriber;
    subscriber.on('error', () => {
      // The main connection reports Redis trouble; a second report per failure adds nothing.
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.snapshotKey) return;
      const notice = parseNotice(message);
      if (notice !== null) return listener.notice(notice);
      const unblocked = parseUnblockNotice(message);
      if (unblocked !== null) listener.unblocked(unblocked);
    });
    // A SUBSCRIBE lost with its connection before Redis confirmed it is not one ioredis knows to
    // renew, so each (re)connection subscribes until one is confirmed.
    let confirmed = false;
    const subscribe = (): void => {
      subscriber.subscribe(this.snapshotKey).then(
        () => (confirmed = true),
        () => undefined,
      );
    };
    subscriber.on('ready', () => {
      if (!confirmed) subscribe();
      listener.resubscribed();
    });
    subscribe();
    return Promise.resolve();
  }

  async beat(heartbeat: InstanceHeartbeat): Promise<void> {
    await this.client.hset(this.instancesKey, heartbeat.id, JSON.stringify(heartbeat));
  }

  async heartbeats(reader: ChannelReader = 'instance'): Promise<InstanceHeartbeat[]> {
    const fields = await this.via(reader).hgetall(this.instancesKey);
    return Object.values(fields).flatMap((text) => parseHeartbeat(text) ?? []);
  }

  async forget(instanceId: string): Promise<void> {
    await this.client.hdel(this.instancesKey, instanceId);
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined && subscriber.status !== 'end') {
      await subscriber.quit().catch(() => subscriber.disconnect());
    }
  }
}

/**
 * ioredis re-sends SUBSCRIBE after a reconnection without handling its failure: with a command
 * timeout, a slow reply there would be an unhandled rejection that ends the process. The
 * subscription connection therefore has no command timeout, and queues while disconnected.
 */
function duplicateQueued(client: Redis | Cluster): Redis | Cluster {
  if ('nodes' in client) {
    const redisOptions = { ...client.options.redisOptions, commandTimeout: undefined };
    return client.duplicate(undefined, { enableOfflineQueue: true, redisOptions });
  }
  return client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    commandTimeout: undefined,
    autoResendUnfulfilledCommands: true,
  });
}
