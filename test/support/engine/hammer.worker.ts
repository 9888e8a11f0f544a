// One load-generating process for test/measured/engine/exactness.spec.ts, run with `node --import tsx`.
// Per run: 'prepare' (build its own client, store and engine) → 'prepared'; 'go' → `concurrency`
// async callers loop `consume` until durationMs pass → 'result'. Caller i calls on identifier
// i mod n of the run's identifiers, and the result counts each identifier apart.
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { SluiceEngine, type PolicyInput } from '@sluice/nest/internals';
import { RedisStore } from '@sluice/nest/engine';

/** Where to call, and through which client library (ioredis unless told). */
export type HammerTarget = (
  { kind: 'single'; url: string } | { kind: 'cluster'; nodes: string }
) & { client?: 'ioredis' | 'node-redis' };

export interface HammerRun {
  target: HammerTarget;
  prefix: string;
  policy: PolicyInput;
  identifiers: string[];
  /** How the store runs its Lua; the store's default ('auto': functions here) when absent. */
  scripting?: 'function' | 'eval';
  concurrency: number;
  /**
   * How long to call. Should the limit not be reached by then (a very slow machine), calls go on
   * until every identifier has seen a rejection, for at most 4 × durationMs, so the count never
   * depends on speed.
   */
  durationMs: number;
  /**
   * sliding-window only: the segment length, ms. Each admission is then filed under the segment
   * it was counted in, recovered from its resetMs (the end of the window it opened).
   */
  segmentMs?: number;
}

export interface IdentifierCounts {
  admitted: number;
  rejected: number;
  /** `remaining` of every admitted decision. */
  remaining: number[];
}

export interface HammerResult extends IdentifierCounts {
  type: 'result';
  calls: number;
  errors: number;
  errorSamples: string[];
  /** The same counts, identifier by identifier. */
  byIdentifier: Record<string, IdentifierCounts>;
  /** sliding-window: admissions by (segment index + segments), when segmentMs was given. */
  bySegmentEnd: Record<string, number>;
  elapsedMs: number;
}

type Message = { type: 'prepare'; run: HammerRun } | { type: 'go' };

const send = (message: object): void => {
  process.send?.(message);
};

let prepared: { run: HammerRun; engine: SluiceEngine; close: () => Promise<unknown> } | undefined;

function addressesOf(nodes: string): Array<{ host: string; port: number }> {
  return nodes.split(',').map((entry) => {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  });
}

/** node-redis's client, connected as an app connects it before handing it to Sluice. */
async function connectNodeRedis(target: HammerTarget) {
  const client =
    target.kind === 'single'
      ? createClient({ url: target.url })
      : createCluster({
          rootNodes: addressesOf(target.nodes).map(({ host, port }) => ({
            url: `redis://${host}:${port}`,
          })),
        });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function connect(target: HammerTarget): Promise<Redis | Cluster> {
  const client =
    target.kind === 'single'
      ? new Redis(target.url, { maxRetriesPerRequest: 1 })
      : new Cluster(
          target.nodes.split(',').map((entry) => {
            const at = entry.lastIndexOf(':');
            return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
          }),
          { scaleReads: 'master' },
        );
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve);
      client.once('error', reject);
    });
  }
  return client;
}

async function prepare(run: HammerRun): Promise<void> {
  const client =
    run.target.client === 'node-redis'
      ? await connectNodeRedis(run.target)
      : await connect(run.target);
  const engine = new SluiceEngine({
    store: new RedisStore(client, run.scripting ? { scripting: run.scripting } : {}),
    prefix: run.prefix,
    policies: [run.policy],
  });
  const close =
    'status' in client
      ? () => client.quit().catch(() => client.disconnect())
      : () => client.close().catch(() => undefined);
  prepared = { run, engine, close };
  send({ type: 'prepared' });
}

async function go(): Promise<void> {
  if (!prepared) throw new Error("'go' before 'prepare'");
  const { run, engine, close } = prepared;
  prepared = undefined;
  const result: HammerResult = {
    type: 'result',
    calls: 0,
    admitted: 0,
    rejected: 0,
    errors: 0,
    errorSamples: [],
    remaining: [],
    byIdentifier: Object.fromEntries(
      run.identifiers.map((identifier) => [
        identifier,
        { admitted: 0, rejected: 0, remaining: [] },
      ]),
    ),
    bySegmentEnd: {},
    elapsedMs: 0,
  };
  const counts = Object.values(result.byIdentifier);
  const started = performance.now();
  const deadline = started + run.durationMs;
  const hardDeadline = started + 4 * run.durationMs;
  const more = (): boolean => {
    const now = performance.now();
    const limitReached = counts.every((each) => each.rejected > 0);
    return now < deadline || (!limitReached && now < hardDeadline);
  };
  const caller = async (index: number): Promise<void> => {
    const identifier = run.identifiers[index % run.identifiers.length]!;
    const mine = result.byIdentifier[identifier]!;
    while (more()) {
      result.calls++;
      try {
        const decision = await engine.consume(run.policy.name, identifier);
        if (decision.allowed) {
          result.admitted++;
          mine.admitted++;
          result.remaining.push(decision.remaining);
          mine.remaining.push(decision.remaining);
          if (run.segmentMs !== undefined) {
            const end = Math.round((Date.now() + decision.resetMs) / run.segmentMs);
            result.bySegmentEnd[end] = (result.bySegmentEnd[end] ?? 0) + 1;
          }
        } else {
          result.rejected++;
          mine.rejected++;
        }
      } catch (error) {
        result.errors++;
        if (result.errorSamples.length < 5) result.errorSamples.push(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: run.concurrency }, (_, index) => caller(index)));
  result.elapsedMs = performance.now() - started;
  await close();
  send(result);
}

process.on('message', (message: Message) => {
  const work = message.type === 'prepare' ? prepare(message.run) : go();
  work.catch((error: unknown) => {
    send({
      type: 'error',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  });
});
process.on('disconnect', () => process.exit(0));
send({ type: 'started', pid: process.pid });
