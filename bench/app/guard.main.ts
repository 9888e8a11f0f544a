/**
 * One contender of `npm run bench:guard`: the tiny app's global guard called in-process with an
 * HTTP context of its own, at a fixed rate, no HTTP server or load generator beside it. Prints
 * the CPU this process spent per decision in each window, as one JSON line. Started by
 * guard.bench.ts, never by hand.
 */
import 'reflect-metadata';
import { HttpException, Module, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createHook } from 'node:async_hooks';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { z } from 'zod';
import { AllocationSampler, type AllocationProfile } from './allocation.sampler.js';
import { USER_HEADER, USERS } from './bench.constants.js';
import { BenchController } from './bench.controller.js';
import { readContenderEnv } from './contender.env.js';
import { limiterFor } from './limiters/limiter.factory.js';

const settingsSchema = z.object({
  GUARD_MODE: z.enum(['ip', 'users']),
  GUARD_RATE: z.coerce.number().int().min(100).max(50_000),
  GUARD_COUNT: z.coerce.number().int().min(1_000).max(1_000_000),
  GUARD_WINDOWS: z.coerce.number().int().min(1).max(20),
  GUARD_ALLOCATIONS: z.enum(['0', '1']).default('0'),
  GUARD_PROMISES: z.enum(['0', '1']).default('0'),
});

/** A guard that lets everything through: the harness's own cost, which `bare` measures. */
const PASS: CanActivate = { canActivate: () => true };
const WARM_UP = 20_000;
const ADDRESS = '127.0.0.1';

interface HeaderReply {
  headers: Record<string, string>;
  header(name: string, value: string): HeaderReply;
}

/** The global guard the limiter registered, as Nest holds it. */
function globalGuard(app: Awaited<ReturnType<typeof NestFactory.create>>): CanActivate {
  const container = (app as unknown as { container: { getModules(): Map<string, unknown> } })
    .container;
  for (const module of container.getModules().values()) {
    const providers = (module as { providers: Map<unknown, { instance: unknown }> }).providers;
    for (const [token, wrapper] of providers) {
      if (typeof token === 'string' && token.startsWith(APP_GUARD)) {
        return wrapper.instance as CanActivate;
      }
    }
  }
  return PASS;
}

async function main(): Promise<void> {
  const env = readContenderEnv(process.env);
  const settings = settingsSchema.parse(process.env);
  const limiter = limiterFor(env);
  class GuardBenchModule {}
  Module({ ...limiter.metadata, controllers: [BenchController] })(GuardBenchModule);
  const app = await NestFactory.create(GuardBenchModule, new FastifyAdapter(), {
    logger: ['error', 'warn'],
  });
  await limiter.prepare?.(app);
  await app.init();
  const guard = globalGuard(app);
  const byUser = settings.GUARD_MODE === 'users';
  const refuses = env.contender.blocked || env.contender.denied === true;
  // The handler the guard reads the marks of, as Nest passes it (never called here).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const handler = byUser ? BenchController.prototype.byUser : BenchController.prototype.byIp;
  let user = 0;
  // A request as Fastify hands it to Nest: the request with its raw one, and a reply.
  const contextOf = (): ExecutionContext => {
    const headers: Record<string, string> = byUser
      ? { [USER_HEADER]: `user-${user++ % USERS}` }
      : {};
    const raw = { headers, socket: { remoteAddress: ADDRESS } };
    const reply: HeaderReply = {
      headers: {},
      header(name, value) {
        this.headers[name] = value;
        return this;
      },
    };
    const context = new ExecutionContextHost(
      [{ headers, raw, ip: ADDRESS }, reply, undefined],
      BenchController,
      handler,
    );
    context.setType('http');
    return context;
  };
  /** `count` decisions started at the rate, a group each millisecond, as a paced load arrives. */
  const paced = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const start = performance.now();
      let started = 0;
      let done = 0;
      const settle = (admitted: boolean) => {
        if (!admitted) reject(new Error('the guard refused: the bench limits are out of reach'));
        else if (++done === count) resolve();
      };
      // A blocked or denied contender refuses by design: its 429 is the decision measured.
      const refused = (error: unknown) => {
        if (refuses && error instanceof HttpException && error.getStatus() === 429) settle(true);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the guard threw, passed on as it is
        else reject(error);
      };
      const tick = () => {
        const due = Math.min(
          count,
          Math.floor(((performance.now() - start) * settings.GUARD_RATE) / 1000),
        );
        while (started < due) {
          started++;
          // A guard may throw before its first await: the refusal is caught either way.
          new Promise<boolean>((answer) =>
            answer(guard.canActivate(contextOf()) as boolean | Promise<boolean>),
          ).then(settle, refused);
        }
        if (started < count) setTimeout(tick, 1);
      };
      tick();
    });
  await paced(WARM_UP);
  const sampler = settings.GUARD_ALLOCATIONS === '1' ? new AllocationSampler() : undefined;
  await sampler?.start();
  // Every promise V8 makes in the windows, an await's own included: a count the machine's noise
  // does not move, where a decision's promise jobs go (docs/benchmarks.md).
  let promises = 0;
  const promiseHook =
    settings.GUARD_PROMISES === '1'
      ? createHook({
          init(_id, type) {
            if (type === 'PROMISE') promises++;
          },
        }).enable()
      : undefined;
  const windows: number[] = [];
  /** Per window and decision: user and system CPU µs, and the times the process slept. */
  const split: Array<{ user: number; system: number; sleeps: number }> = [];
  /** Per window: the event loop's delay, p99 and max, ms (the tail a request would meet). */
  const lags: Array<{ p99: number; max: number }> = [];
  for (let window = 0; window < settings.GUARD_WINDOWS; window++) {
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const before = process.cpuUsage();
    const sleptBefore = process.resourceUsage().voluntaryContextSwitches;
    await paced(settings.GUARD_COUNT);
    lag.disable();
    lags.push({ p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 });
    const spent = process.cpuUsage(before);
    const slept = process.resourceUsage().voluntaryContextSwitches - sleptBefore;
    windows.push((spent.user + spent.system) / settings.GUARD_COUNT);
    split.push({
      user: spent.user / settings.GUARD_COUNT,
      system: spent.system / settings.GUARD_COUNT,
      sleeps: slept / settings.GUARD_COUNT,
    });
  }
  promiseHook?.disable();
  const decided = settings.GUARD_COUNT * settings.GUARD_WINDOWS;
  const allocations: AllocationProfile | undefined = await sampler?.stop(decided);
  const promisesPerDecision = promiseHook === undefined ? undefined : promises / decided;
  process.stdout.write(
    `${JSON.stringify({ contender: env.contender.id, windows, split, lags, allocations, promisesPerDecision })}\n`,
  );
  await app.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
