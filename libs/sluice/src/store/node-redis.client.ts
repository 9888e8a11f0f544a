import { EventEmitter } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { clusterSlot } from './cluster.slot.js';

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

type Argument = string | number | Buffer;

/** The key a command acts on, for a cluster's routing; undefined when it names none. */
function keyOf(args: readonly string[]): string | undefined {
  const command = args[0]?.toUpperCase();
  switch (command) {
    case 'EVAL':
    case 'EVALSHA':
    case 'FCALL':
    case 'FCALL_RO':
      return Number(args[2]) > 0 ? args[3] : undefined;
    case 'XREADGROUP':
    case 'XREAD': {
      const at = args.findIndex((arg) => arg.toUpperCase() === 'STREAMS');
      return at < 0 ? undefined : args[at + 1];
    }
    case 'XGROUP':
      return args[2];
    case 'PUBLISH':
    case 'INFO':
    case 'FUNCTION':
    case 'SCRIPT':
      return undefined;
    default:
      return args[1];
  }
}

/** RESP2's flat [field, value, …] as ioredis answers HGETALL: an object. */
function fieldsOf(reply: unknown): Record<string, string> {
  if (!Array.isArray(reply)) return (reply ?? {}) as Record<string, string>;
  const fields: Record<string, string> = {};
  for (let at = 0; at + 1 < reply.length; at += 2) {
    fields[String(reply[at])] = String(reply[at + 1]);
  }
  return fields;
}

/**
 * Commands sent together, each answered on its own: node-redis writes commands issued in one turn
 * in one write (its own pipelining), so this is one round trip, and an error reply fails only its
 * command, as in an ioredis pipeline.
 */
async function sentTogether(
  send: (args: string[]) => Promise<unknown>,
  commands: string[][],
): Promise<Array<[Error | null, unknown]>> {
  const results = await Promise.allSettled(commands.map((args) => send(args)));
  return results.map((result) =>
    result.status === 'fulfilled'
      ? [null, result.value]
      : [
          result.reason instanceof Error ? result.reason : new Error(String(result.reason)),
          undefined,
        ],
  );
}

/**
 * The commands Sluice sends, each by its ioredis name, queued on `send`: the same on a client, a
 * cluster and a pipeline of either.
 */
abstract class Commands<Result> {
  protected abstract send(args: string[], shape?: (reply: unknown) => unknown): Result;

  private command(name: string, args: Argument[], shape?: (reply: unknown) => unknown): Result {
    return this.send([name, ...args.map(String)], shape);
  }

  call(name: string, ...args: Argument[]): Result {
    return this.command(name, args);
  }
  eval(...args: Argument[]): Result {
    return this.command('EVAL', args);
  }
  evalsha(...args: Argument[]): Result {
    return this.command('EVALSHA', args);
  }
  fcall(...args: Argument[]): Result {
    return this.command('FCALL', args);
  }
  function(...args: Argument[]): Result {
    return this.command('FUNCTION', args);
  }
  script(...args: Argument[]): Result {
    return this.command('SCRIPT', args);
  }
  get(...args: Argument[]): Result {
    return this.command('GET', args);
  }
  set(...args: Argument[]): Result {
    return this.command('SET', args);
  }
  del(...args: Argument[]): Result {
    return this.command('DEL', args);
  }
  hgetall(...args: Argument[]): Result {
    return this.command('HGETALL', args, fieldsOf);
  }
  hset(...args: Argument[]): Result {
    return this.command('HSET', args);
  }
  hdel(...args: Argument[]): Result {
    return this.command('HDEL', args);
  }
  hincrby(...args: Argument[]): Result {
    return this.command('HINCRBY', args);
  }
  pexpire(...args: Argument[]): Result {
    return this.command('PEXPIRE', args);
  }
  zadd(...args: Argument[]): Result {
    return this.command('ZADD', args);
  }
  zincrby(...args: Argument[]): Result {
    return this.command('ZINCRBY', args);
  }
  zremrangebyrank(...args: Argument[]): Result {
    return this.command('ZREMRANGEBYRANK', args);
  }
  xadd(...args: Argument[]): Result {
    return this.command('XADD', args);
  }
  xack(...args: Argument[]): Result {
    return this.command('XACK', args);
  }
  xgroup(...args: Argument[]): Result {
    return this.command('XGROUP', args);
  }
  info(...args: Argument[]): Result {
    return this.command('INFO', args);
  }
  publish(...args: Argument[]): Result {
    return this.command('PUBLISH', args);
  }
}

/** Commands queued for one round trip, sent by `run`; `exec` answers as ioredis's pipeline does. */
class QueuedCommands extends Commands<QueuedCommands> {
  private readonly queued: Array<{ args: string[]; shape?: (reply: unknown) => unknown }> = [];

  constructor(
    private readonly run: (commands: string[][]) => Promise<Array<[Error | null, unknown]>>,
  ) {
    super();
  }

  protected send(args: string[], shape?: (reply: unknown) => unknown): QueuedCommands {
    this.queued.push({ args, shape });
    return this;
  }

  async exec(): Promise<Array<[Error | null, unknown]>> {
    const queued = this.queued.splice(0);
    if (queued.length === 0) return [];
    const results = await this.run(queued.map((each) => each.args));
    return results.map(([error, reply], at) => {
      const shape = queued[at]?.shape;
      return error === null && shape !== undefined ? [null, shape(reply)] : [error, reply];
    });
  }
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
      return master === undefined ? undefined : [address(master)];
    },
  });

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
