// One fault under load: a second of normal traffic, the fault, then Redis back until every
// instance decides every route in Redis once more; then what Redis counted.
import { SluiceService } from '@sluice/nest/internals';
import { SluiceConnection } from '@sluice/nest/src/connection/sluice.connection.js';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { vi, type MockInstance } from 'vitest';
import type { FaultMode, FaultProxy } from '../../support/fault-proxy.js';
import { startLoad, type LoadSample } from '../../support/load.generator.js';
import type { AdapterName, RunningApp } from '../../support/nest-app.js';
import { LOCAL_LIMIT, OPEN_LIMIT, ROUTES, type FaultRoute } from './app.module.js';

const BEFORE_MS = 1_000;
/** How long the test waits for Redis decisions after the fault; the spec asserts a tighter bound. */
const RECOVERY_PATIENCE_MS = 5_000;
const AFTER_RECOVERY_MS = 500;
/** Lets anything the proxy held reach Redis before the counts are read. */
const SETTLE_MS = 300;
const BREAKER_WATCH_MS = 10;

export const REDIS_LIMIT: Record<FaultRoute, number> = {
  allow: OPEN_LIMIT,
  deny: OPEN_LIMIT,
  local: LOCAL_LIMIT,
};
/**
 * `onset`: from the fault until every breaker is open; a call sent just before the fault may have
 * run with its reply lost, so these are in doubt. `outage`: the breakers are open.
 */
export const PHASES = ['before', 'onset', 'outage', 'after'] as const;
type Phase = (typeof PHASES)[number];

export interface Instance {
  adapter: AdapterName;
  running: RunningApp;
  connection: SluiceConnection;
  fcall: MockInstance;
}

export function instanceOf(adapter: AdapterName, running: RunningApp): Instance {
  const connection = running.app.get(SluiceConnection);
  const client = connection.decisionRedis as Redis;
  return { adapter, running, connection, fcall: vi.spyOn(client, 'fcall') };
}

export interface Answer extends LoadSample {
  adapter: AdapterName;
  route: FaultRoute;
  phase: Phase;
}

export interface FaultRun {
  answers: Answer[];
  /** performance.now() once the fault held, and once the proxy passed again. */
  faultAt: number;
  passAt: number;
  breakerOpenedAt: Partial<Record<AdapterName, number>>;
  /** FCALLs each instance sent while the fault held. */
  fcallsDuringFault: Partial<Record<AdapterName, number>>;
  /** What Redis holds after the run, by `${route} ${identifier}`: requests counted. */
  counted: Map<string, number>;
  /** The keys of calls sent whose reply never came: each may have counted once, unanswered. */
  keysInDoubt: string[];
}

/** Replies that prove the call never ran: refused before sending, or a function to load first. */
export const NEVER_RAN = /isn't writeable|isn't ready|Function not found/;

function keysInDoubt(instance: Instance, fromCall: number): string[] {
  const { calls, settledResults } = instance.fcall.mock;
  const keys: string[] = [];
  for (let i = fromCall; i < calls.length; i++) {
    const result = settledResults[i];
    if (result?.type !== 'rejected' || NEVER_RAN.test((result.value as Error).message)) continue;
    const [, keyCount, ...keysAndArgs] = calls[i] as [string, number | string, ...string[]];
    keys.push(...keysAndArgs.slice(0, Number(keyCount)));
  }
  return keys;
}

/** The quota in the answer's RateLimit-Policy, or null when it carries none. */
export function quotaOf(answer: Answer): number | null {
  const policy = answer.headers.get('ratelimit-policy');
  const quota = policy === null ? undefined : /;q=(\d+)/.exec(policy)?.[1];
  return quota === undefined ? null : Number(quota);
}

/** Redis decided it: the answer shows the policy's figures as Redis keeps them. */
export const decidedByRedis = (answer: Answer): boolean =>
  quotaOf(answer) === REDIS_LIMIT[answer.route];

export const identifierOf = (label: string, phase: Phase): string => `${label}-${phase}`;

/** What takes Redis away, and what brings it back. */
export interface Fault {
  begin(): Promise<void>;
  end(): Promise<void>;
}

/** A fault proxy switched to `mode`, then to pass again. */
export const proxyFault = (proxy: FaultProxy, mode: FaultMode): Fault => ({
  begin: () => proxy.mode(mode),
  end: () => proxy.mode('pass'),
});

export async function runFault(
  instances: readonly Instance[],
  fault: Fault,
  faultMs: number,
  label: string,
): Promise<FaultRun> {
  let phase: Phase = 'before';
  const answers: Answer[] = [];
  const firstCall = instances.map((instance) => instance.fcall.mock.calls.length);
  const targets = instances.flatMap(({ adapter, running }) =>
    ROUTES.map((route) => ({ name: `${adapter} ${route}`, url: `${running.url}/${route}` })),
  );
  const load = startLoad({
    targets,
    identifier: () => identifierOf(label, phase),
    workersPerTarget: 1,
    pauseMs: 5,
    record: (sample) => {
      const [adapter, route] = sample.target.split(' ') as [AdapterName, FaultRoute];
      const sentIn = sample.identifier.slice(label.length + 1) as Phase;
      answers.push({ ...sample, adapter, route, phase: sentIn });
    },
  });
  await sleep(BEFORE_MS);

  const fcallsAtStart = instances.map((instance) => instance.fcall.mock.calls.length);
  await fault.begin();
  const faultAt = performance.now();
  phase = 'onset';
  const breakerOpenedAt: FaultRun['breakerOpenedAt'] = {};
  const watch = setInterval(() => {
    for (const { adapter, connection } of instances) {
      if (connection.breakerState === 'open') breakerOpenedAt[adapter] ??= performance.now();
    }
    if (instances.every(({ adapter }) => breakerOpenedAt[adapter] !== undefined)) {
      phase = 'outage';
      clearInterval(watch);
    }
  }, BREAKER_WATCH_MS);
  await sleep(faultMs);
  clearInterval(watch);

  phase = 'after';
  const fcallsDuringFault = Object.fromEntries(
    instances.map(({ adapter, fcall }, i) => [
      adapter,
      fcall.mock.calls.length - fcallsAtStart[i]!,
    ]),
  );
  await fault.end();
  const passAt = performance.now();
  const recovered = (): boolean =>
    instances.every(({ adapter }) =>
      ROUTES.every((route) =>
        answers.some(
          (answer) =>
            answer.adapter === adapter &&
            answer.route === route &&
            answer.sentAt >= passAt &&
            decidedByRedis(answer),
        ),
      ),
    );
  const deadline = passAt + RECOVERY_PATIENCE_MS;
  while (!recovered() && performance.now() < deadline) await sleep(20);
  await sleep(AFTER_RECOVERY_MS);
  await load.stop();
  await sleep(SETTLE_MS);

  const service = instances[0]!.running.app.get(SluiceService);
  const counted = new Map<string, number>();
  for (const route of ROUTES) {
    for (const each of PHASES) {
      const identifier = identifierOf(label, each);
      const { remaining } = await service.peek(route, identifier);
      counted.set(`${route} ${identifier}`, REDIS_LIMIT[route] - remaining);
    }
  }
  const inDoubt = instances.flatMap((instance, i) => keysInDoubt(instance, firstCall[i]!));
  return {
    answers,
    faultAt,
    passAt,
    breakerOpenedAt,
    fcallsDuringFault,
    counted,
    keysInDoubt: inDoubt,
  };
}
