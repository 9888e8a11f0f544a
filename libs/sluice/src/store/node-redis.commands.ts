// The commands Sluice sends through a node-redis client, each by its ioredis name, with the
// replies shaped as ioredis shapes them (docs/architecture.md, "Redis clients").

type Argument = string | number | Buffer;

/** The key a command acts on, for a cluster's routing; undefined when it names none. */
export function keyOf(args: readonly string[]): string | undefined {
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
export async function sentTogether(
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
export abstract class Commands<Result> {
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
  xtrim(...args: Argument[]): Result {
    return this.command('XTRIM', args);
  }
  xrange(...args: Argument[]): Result {
    return this.command('XRANGE', args);
  }
  xrevrange(...args: Argument[]): Result {
    return this.command('XREVRANGE', args);
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
export class QueuedCommands extends Commands<QueuedCommands> {
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
