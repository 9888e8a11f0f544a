import { EventEmitter } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { clusterSlot } from './cluster.slot.js';
import { Commands, keyOf, QueuedCommands, sentTogether } from './node-redis.commands.js';

/** What a node-redis (the `redis` package, 4 and 5) client and cluster both have that Sluice uses. */
export interface NodeRedisConnection {
  /** Opens a duplicate's connection. */
  connect(): Promise<unknown>;
  /** Whether the connection is open (or opening). */
  readonly isOpen: boolean;
  /** Subscribes a duplicate to the policy bus's channel. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  /** Its connection events: ready, end, error, reconnecting. */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Closes it (node-redis 4). */
  quit?(): Promise<unknown>;
  /** Closes it (node-redis 5). */
  close?(): Promise<unknown>;
  /** Drops the connection (node-redis 4). */
  disconnect?(): Promise<unknown>;
  /** Drops the connection (node-redis 5). */
  destroy?(): void;
}

/**
 * The parts of a node-redis client Sluice calls: the same in both majors (docs/guide.md, "The
 * Redis connection").
 */
export interface NodeRedisClient extends NodeRedisConnection {
  /** Sends one command: every command Sluice sends goes through it. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new connection with the same options: for the bus's subscriber and blocking reads. */
  duplicate(): NodeRedisClient;
  /** Whether it answers commands. */
  readonly isReady: boolean;
}

/** A node-redis cluster's parts Sluice calls. */
export interface NodeRedisCluster extends NodeRedisConnection {
  /** Sends one command to the master of `firstKey` (any node when undefined). */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  /** A new cluster client with the same options. */
  duplicate(): NodeRedisCluster;
  /** The masters: the Lua library is loaded on each. */
  readonly masters: ReadonlyArray<{ host: string; port: number }>;
  /** The master serving a slot: the store batches calls per master. */
  getSlotMaster(slot: number): { host: string; port: number };
  /** A master's own client: a batch for one master goes to it in one round trip. */
  nodeClient(node: { host: string; port: number }): NodeRedisClient | Promise<NodeRedisClient>;
}

/** A node-redis client or cluster, told apart from ioredis by `sendCommand` and `isOpen`. */
export function isNodeRedis(value: unknown): value is NodeRedisClient | NodeRedisCluster {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { sendCommand?: unknown }).sendCommand === 'function' &&
    typeof (value as { isOpen?: unknown }).isOpen === 'boolean' &&
    !('status' in value)
  );
}

function isCluster(client: NodeRedisClient | NodeRedisCluster): client is NodeRedisCluster {
  return typeof (client as NodeRedisCluster).getSlotMaster === 'function';
}

/** The client's connection state in ioredis's words. */
type Status = 'wait' | 'connecting' | 'ready' | 'end';

/**
 * A node-redis client or cluster behind the part of ioredis's interface Sluice uses, so one store,
 * bus, stream and stats serve both (docs/architecture.md, "Redis clients"). Replies are shaped as
 * ioredis shapes them (HGETALL an object, a pipeline [error, reply] pairs).
 */
abstract class NodeRedisAdapter extends Commands<Promise<unknown>> {
  protected readonly events = new EventEmitter();
  /** Resolves once the connection this adapter opened is up; undefined for the app's client. */
  protected opening: Promise<unknown> | undefined;
  private closed = false;

  constructor(
    protected readonly client: NodeRedisClient | NodeRedisCluster,
    owned: boolean,
  ) {
    super();
    for (const event of ['ready', 'end', 'error', 'reconnecting']) {
      client.on(event, (...args: unknown[]) => {
        if (event !== 'error' || this.events.listenerCount('error') > 0)
          this.events.emit(event, ...args);
      });
    }
    if (owned) this.opening = client.connect().catch(() => undefined);
  }

  /** Options as ioredis has them: none of ioredis's apply. */
  readonly options: { redisOptions?: object } = {};

  get status(): Status {
    if (this.closed) return 'end';
    if (this.client.isOpen)
      return (this.client as NodeRedisClient).isReady === false ? 'connecting' : 'ready';
    return this.opening === undefined ? 'end' : 'connecting';
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    this.events.on(event, listener);
    return this;
  }
  once(event: string, listener: (...args: unknown[]) => void): this {
    this.events.once(event, listener);
    return this;
  }
  off(event: string, listener: (...args: unknown[]) => void): this {
    this.events.off(event, listener);
    return this;
  }

  async subscribe(channel: string): Promise<void> {
    await this.opening;
    await this.client.subscribe(channel, (message, from) =>
      this.events.emit('message', from, message),
    );
  }

  async quit(): Promise<void> {
    this.closed = true;
    await this.opening;
    const client = this.client;
    await (client.close?.() ?? client.quit?.());
  }

  disconnect(): void {
    this.closed = true;
    const client = this.client;
    if (client.destroy !== undefined) client.destroy();
    else void client.disconnect?.().catch(() => undefined);
  }

  protected async sent(
    send: () => Promise<unknown>,
    shape?: (reply: unknown) => unknown,
  ): Promise<unknown> {
    if (this.opening !== undefined && !this.client.isOpen) await this.opening;
    const reply = await send();
    return shape === undefined ? reply : shape(reply);
  }
}

class NodeRedisSingle extends NodeRedisAdapter {
  declare protected readonly client: NodeRedisClient;

  protected send(args: string[], shape?: (reply: unknown) => unknown): Promise<unknown> {
    return this.sent(() => this.client.sendCommand(args), shape);
  }

  pipeline(): QueuedCommands {
    return new QueuedCommands(async (commands) => {
      if (this.opening !== undefined && !this.client.isOpen) await this.opening;
      return sentTogether((args) => this.client.sendCommand(args), commands);
    });
  }

  duplicate(): NodeRedisSingle {
    const copy = new NodeRedisSingle(this.client.duplicate(), true);
    // A connection Sluice opened reports its errors through it, never as an unhandled 'error'.
    copy.client.on('error', () => undefined);
    return copy;
  }
}

function address(node: { host: string; port: number }): string {
  return `${node.host}:${node.port}`;
}

class NodeRedisClusterAdapter extends NodeRedisAdapter {
  declare protected readonly client: NodeRedisCluster;

  /** ioredis's slot table, read through: the master serving each slot, as "host:port". */
  readonly slots: ReadonlyArray<readonly string[]> = new Proxy([] as string[][], {
    get: (target, property) => {
      const slot = typeof property === 'string' ? Number(property) : NaN;
      if (!Number.isInteger(slot)) return Reflect.get(target, property) as unknown;
      const master = this.client.getSlotMaster(slot) as { host: string; port: number } | undefined;
      if (master === undefined) return undefined;
      // The store reads this once per call: one array per master, not one per call.
      let named = this.addresses.get(master);
      if (named === undefined) {
        named = [address(master)];
        this.addresses.set(master, named);
      }
      return named;
    },
  });

  private readonly addresses = new WeakMap<object, readonly string[]>();

  protected send(args: string[], shape?: (reply: unknown) => unknown): Promise<unknown> {
    return this.sent(() => this.client.sendCommand(keyOf(args), false, args), shape);
  }

  /** The masters, each as a client of its own (for loading the Lua library on every one). */
  nodes(): NodeRedisSingle[] {
    return this.client.masters.map((master) => {
      const node = {
        isOpen: true,
        isReady: true,
        on: () => node,
        sendCommand: async (args: string[]) =>
          (await this.client.nodeClient(master)).sendCommand(args),
      };
      return new NodeRedisSingle(node as unknown as NodeRedisClient, false);
    });
  }

  /**
   * Commands for one master (the store batches per master): sent to the master of the first
   * one's key as one pipeline; a command whose slot moved answers MOVED, which the store retries.
   */
  pipeline(): QueuedCommands {
    return new QueuedCommands(async (commands) => {
      if (this.opening !== undefined && !this.client.isOpen) await this.opening;
      const key = commands.map(keyOf).find((each) => each !== undefined);
      const master = this.client.getSlotMaster(key === undefined ? 0 : clusterSlot(key));
      const node = await this.client.nodeClient(master);
      return sentTogether((args) => node.sendCommand(args), commands);
    });
  }

  duplicate(): NodeRedisClusterAdapter {
    const copy = new NodeRedisClusterAdapter(this.client.duplicate(), true);
    copy.client.on('error', () => undefined);
    return copy;
  }
}

/**
 * The app's node-redis client (connected) as the store, bus, stream and stats call it. Typed as
 * ioredis's client because it answers as one for every command Sluice sends; nothing else of
 * ioredis is reached through it.
 */
export function fromNodeRedis(client: NodeRedisClient | NodeRedisCluster): Redis | Cluster {
  const adapter = isCluster(client)
    ? new NodeRedisClusterAdapter(client, false)
    : new NodeRedisSingle(client, false);
  return adapter as unknown as Redis | Cluster;
}
