// Failures (docs/operations.md, when Redis or PostgreSQL is down): a Redis Cluster master hands over to its replica (CLUSTER FAILOVER) under load;
// decisions continue, none crosses slots, and whatever fails is answered by the fail mode.
import { PolicyBus, SluiceService } from '@sluice/nest/internals';
import { Cluster, Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, storeFaultsApp, type FaultRoute } from '../store-faults/app.module.js';
import {
  decidedByRedis,
  instanceOf,
  NEVER_RAN,
  REDIS_LIMIT,
  type Answer,
  type Instance,
} from '../store-faults/fault.scenario.js';
import { startLoad } from '../../support/load.generator.js';
import { startApp, uniquePrefix, type AdapterName } from '../../support/nest-app.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-servers.js';
import { recordReliabilitySection } from '../../support/measured-figures.js';

const TIMEOUT_MS = 100;
/**
 * ioredis' own timeout, a backstop as docs/guide.md advises: it fires in the timers phase, before
 * a reply that came while the loop was held is read, so under load it would fail decisions Redis
 * had answered in time. Sluice's deadline (TIMEOUT_MS) reads the socket first.
 */
const COMMAND_TIMEOUT_MS = 1_000;
const IDENTIFIERS = 24;
const BEFORE_MS = 1_500;
const AFTER_MS = 3_000;
const FAILOVER_BOUND_MS = 10_000;
/** The keys an FCALL's arguments declare: every call it carries. */
const keysOf = (args: readonly unknown[]): string[] =>
  args.slice(2, 2 + Number(args[1])).map(String);
/** Replies of a node that ran nothing of the call: its slot is served elsewhere, or moving. */
const REDIRECTED = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;

describe('a Redis Cluster master failing over to its replica under load', () => {
  let cluster: RedisCluster;
  const clients: Cluster[] = [];
  let instances: Instance[] = [];
  const prefix = uniquePrefix('failover');
  const answers: Answer[] = [];
  let failoverAt = 0;
  let promotedAt = 0;
  /**
   * Keys of FCALLs whose reply came after Sluice's deadline: Sluice answered those requests by
   * onStoreError, yet the call ran. With ioredis' timeout above Sluice's, such a call resolves
   * instead of failing, and is in doubt as much as one that failed.
   */
  const lateReplies: string[] = [];
  /**
   * The same for the FCALLs Sluice sent in a pipeline (a master's calls of one turn, one FCALL per
   * slot): the keys of those that failed, or whose reply came late, but not those a node refused
   * without running them (a redirection), which Sluice sends again through fcall.
   */
  const pipelinedInDoubt: string[] = [];
  const pipelineErrors: string[] = [];

  /** As docs/guide.md tells users to build their Cluster client. */
  function clusterClient(): Cluster {
    const client = new Cluster([...cluster.nodes], {
      enableOfflineQueue: false,
      retryDelayOnFailover: 0,
      redisOptions: {
        commandTimeout: COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
      },
    });
    const call = client.fcall.bind(client);
    client.fcall = ((...args: Parameters<typeof client.fcall>) => {
      const sentAt = performance.now();
      const reply = call(...args);
      // A few ms short of the deadline: a reply right at it may have lost the race.
      void reply.then(
        () => {
          if (performance.now() - sentAt > TIMEOUT_MS - 5) lateReplies.push(...keysOf(args));
        },
        () => undefined,
      );
      return reply;
    }) as typeof client.fcall;
    watchPipelines(client);
    clients.push(client);
    return client;
  }

  /** Records what pipelineErrors and pipelinedInDoubt hold, for each pipeline of `client`. */
  function watchPipelines(client: Cluster): void {
    const pipelineOf = client.pipeline.bind(client);
    client.pipeline = (...args: Parameters<typeof client.pipeline>) => {
      const pipeline = pipelineOf(...args);
      const declared: string[][] = [];
      const fcall = pipeline.fcall.bind(pipeline);
      pipeline.fcall = ((...fcallArgs: Parameters<typeof pipeline.fcall>) => {
        declared.push(keysOf(fcallArgs));
        return fcall(...fcallArgs);
      }) as typeof pipeline.fcall;
      const exec = pipeline.exec.bind(pipeline);
      pipeline.exec = () => {
        const sentAt = performance.now();
        const results = exec();
        void results.then(
          (replies) => {
            const late = performance.now() - sentAt > TIMEOUT_MS - 5;
            (replies ?? []).forEach(([error], index) => {
              // A redirected FCALL is sent again through fcall, whose outcome the spy records.
              if (error && !REDIRECTED.test(error.message)) pipelineErrors.push(error.message);
              const ranNothing =
                error && (NEVER_RAN.test(error.message) || REDIRECTED.test(error.message));
              // A command other than FCALL (the stats' counters share the client) names no
              // identifier's keys.
              if ((error && !ranNothing) || (!error && late))
                pipelinedInDoubt.push(...(declared[index] ?? []));
            });
          },
          (error: unknown) => {
            for (const keys of declared) {
              pipelineErrors.push(String(error));
              if (!NEVER_RAN.test(String(error))) pipelinedInDoubt.push(...keys);
            }
          },
        );
        return results;
      };
      return pipeline;
    };
  }

  /** The replica of the master that holds the keys of identifier id-0. */
  async function replicaOfBusyMaster(client: Cluster): Promise<{ host: string; port: number }> {
    const slot = Number(await client.cluster('KEYSLOT', `${prefix}:{header:x-client:id-0}`));
    const ranges = (await client.cluster('SLOTS')) as Array<[number, number, ...unknown[][]]>;
    const range = ranges.find(([from, to]) => from <= slot && slot <= to);
    const replica = range?.[3];
    if (replica === undefined) throw new Error(`no replica serves slot ${slot}`);
    return { host: String(replica[0]), port: Number(replica[1]) };
  }

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    const options = { prefix, timeoutMs: TIMEOUT_MS };
    const start = async (adapter: AdapterName) =>
      instanceOf(
        adapter,
        await startApp(adapter, storeFaultsApp({ ...options, redis: clusterClient() })),
      );
    instances = [await start('express'), await start('fastify')];
    // Until each has read the other's heartbeat, a local decision would show Redis' figures.
    const deadline = performance.now() + 5_000;
    while (instances.some(({ running }) => running.app.get(PolicyBus).liveInstances < 2)) {
      if (performance.now() > deadline) throw new Error('the two instances never saw each other');
      await sleep(50);
    }

    let next = 0;
    const load = startLoad({
      targets: instances.flatMap(({ adapter, running }) =>
        ROUTES.map((route) => ({ name: `${adapter} ${route}`, url: `${running.url}/${route}` })),
      ),
      identifier: () => `id-${next++ % IDENTIFIERS}`,
      workersPerTarget: 1,
      pauseMs: 5,
      record: (sample) => {
        const [adapter, route] = sample.target.split(' ') as [AdapterName, FaultRoute];
        const phase = failoverAt === 0 ? 'before' : promotedAt === 0 ? 'onset' : 'after';
        answers.push({ ...sample, adapter, route, phase });
      },
    });
    await sleep(BEFORE_MS);
    const target = await replicaOfBusyMaster(clients[0]!);
    const replica = new Redis({ ...target, lazyConnect: true });
    try {
      failoverAt = performance.now();
      await replica.call('CLUSTER', 'FAILOVER');
      while (!(await replica.info('replication')).includes('role:master')) {
        if (performance.now() - failoverAt > FAILOVER_BOUND_MS) throw new Error('no failover');
        await sleep(20);
      }
      promotedAt = performance.now();
    } finally {
      replica.disconnect();
    }
    await sleep(AFTER_MS);
    await load.stop();
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.running.close()));
    for (const client of clients) client.disconnect();
    await cluster?.stop();
  });

  it('keeps deciding: no 500, no CROSSSLOT, every failure answered by the fail mode, counts exact', async () => {
    expect(answers.filter((answer) => answer.status === 0).map((a) => a.error)).toEqual([]);
    // Admitted or refused, never an error: whether limits are reached depends on the load.
    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(statuses.has(200)).toBe(true);

    const errors = instances.flatMap(({ fcall }) =>
      fcall.mock.settledResults.flatMap((result) =>
        result.type === 'rejected' ? [String((result.value as Error).message)] : [],
      ),
    );
    errors.push(...pipelineErrors);
    // The server's refusal, or the client's before sending a pipeline whose slots differ.
    expect(errors.filter((message) => /CROSSSLOT|belong to the same slot/.test(message))).toEqual(
      [],
    );

    const failed = answers.filter((answer) => !decidedByRedis(answer));
    const outcomes = new Set(
      failed
        .filter((answer) => answer.route !== 'local')
        .map((a) => `${a.route} ${a.status} ${a.headers.get('retry-after')}`),
    );
    for (const outcome of outcomes) expect(['allow 200 null', 'deny 429 1']).toContain(outcome);

    for (const { adapter } of instances) {
      for (const route of ROUTES) {
        const after = answers.filter(
          (a) => a.adapter === adapter && a.route === route && a.phase === 'after',
        );
        expect(after.some(decidedByRedis), `${adapter} /${route} decided in Redis after`).toBe(
          true,
        );
      }
    }

    // Failures stop once the cluster has settled: the last second is all decided in Redis.
    const lastSecond = answers.filter(
      (a) => a.sentAt > Math.max(...answers.map((b) => b.sentAt)) - 1_000,
    );
    expect(lastSecond.filter((answer) => !decidedByRedis(answer))).toEqual([]);

    // Each call whose reply never came, or came after the deadline, ran once or not at all: the
    // only counts beyond answers.
    const failedCalls = instances.flatMap(({ fcall }) =>
      fcall.mock.calls.flatMap((call, i) => {
        const result = fcall.mock.settledResults[i];
        if (result?.type !== 'rejected') return [];
        if (NEVER_RAN.test(String((result.value as Error).message))) return [];
        return keysOf(call);
      }),
    );
    const inDoubt = [...failedCalls, ...lateReplies, ...pipelinedInDoubt];
    const service = instances[0]!.running.app.get(SluiceService);
    let surplus = 0;
    for (let id = 0; id < IDENTIFIERS; id++) {
      const identifier = `id-${id}`;
      let identifierSurplus = 0;
      for (const route of ROUTES) {
        const admitted = answers.filter(
          (a) =>
            a.route === route &&
            a.identifier === identifier &&
            a.status === 200 &&
            decidedByRedis(a),
        ).length;
        const counted = REDIS_LIMIT[route] - (await service.peek(route, identifier)).remaining;
        expect(counted, `/${route} ${identifier}`).toBeGreaterThanOrEqual(admitted);
        identifierSurplus += counted - admitted;
      }
      const doubtful = inDoubt.filter((key) => key.includes(`:${identifier}}`)).length;
      expect(identifierSurplus, `${identifier}: counted unanswered`).toBeLessThanOrEqual(doubtful);
      surplus += identifierSurplus;
    }

    const worst = Math.max(...answers.map((answer) => answer.ms));
    const slow = answers.filter((answer) => answer.ms > TIMEOUT_MS + 50).length;
    await recordReliabilitySection(
      'cluster-failover',
      report({
        requests: answers.length,
        failMode: failed.filter((a) => a.route !== 'local').length,
        errors: errors.length,
        worst,
        slow,
        promotionMs: promotedAt - failoverAt,
        inDoubt: inDoubt.length,
        surplus,
      }),
    );
  });
});

function report(figures: {
  requests: number;
  failMode: number;
  errors: number;
  worst: number;
  slow: number;
  promotionMs: number;
  inDoubt: number;
  surplus: number;
}): string {
  return `## Redis Cluster failover under load

| requests | store errors | answered by onStoreError (\`/allow\`, \`/deny\`) | CROSSSLOT | HTTP 500 | worst latency | over ${TIMEOUT_MS + 50} ms | replica promoted after | decisions lost / doubled | calls in doubt (of which counted) |
| -------- | ------------ | ---------------------------------------------- | --------- | -------- | ------------- | ------------------ | ---------------------- | ------------------------ | --------------------------------- |
| ${figures.requests} | ${figures.errors} | ${figures.failMode} | 0 | 0 | ${figures.worst.toFixed(0)} ms | ${figures.slow} | ${figures.promotionMs.toFixed(0)} ms | 0 / 0 | ${figures.inDoubt} (${figures.surplus}) |

Method (\`test/measured/faults/cluster-failover.spec.ts\`, run with
\`npx vitest run test/measured/faults/cluster-failover.spec.ts\`): the test starts a cluster of 3
masters with one replica each. An Express and a Fastify instance, each with its own ioredis
\`Cluster\` client built as docs/guide.md shows (offline queue off, \`commandTimeout\`
${COMMAND_TIMEOUT_MS} ms as a backstop behind Sluice's \`timeoutMs\` of ${TIMEOUT_MS} ms, \`maxRetriesPerRequest\` 0, \`autoResendUnfulfilledCommands\` false,
\`retryDelayOnFailover\` 0: no command that may have run is ever sent twice, so a call the test saw fail is the
only kind in doubt), take one client loop per route (\`/allow\`, \`/deny\`, \`/local\`) over
${IDENTIFIERS} identifiers spread across the slots. After
${BEFORE_MS / 1000} s, \`CLUSTER FAILOVER\` is sent to the replica of the master holding the
busiest identifier; the load goes on ${AFTER_MS / 1000} s after the replica reports
\`role:master\`. Store errors are the FCALLs the clients saw fail, alone or in a pipeline; every one was answered by the
route's \`onStoreError\`. Afterwards each identifier's count, read with \`peek\`, was compared with
the admissions Redis answered.`;
}
