/**
 * One contender of `npm run bench`: the tiny app with one limiter, on Fastify or Express,
 * listening on a free loopback port. Started by the harness (contender.process.ts), never by hand.
 */
import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { AddressInfo, Server } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LOOP_MARK, READY_MARK } from './bench.constants.js';
import { BenchController } from './bench.controller.js';
import { readContenderEnv } from './contender.env.js';
import { limiterFor } from './limiters/limiter.factory.js';

/** The event loop is sampled every this many ms. */
const LOOP_RESOLUTION_MS = 5;

async function main(): Promise<void> {
  const env = readContenderEnv(process.env);
  const limiter = limiterFor(env);
  class BenchAppModule {}
  Module({ ...limiter.metadata, controllers: [BenchController] })(BenchAppModule);
  const options = { logger: ['error' as const, 'warn' as const] };
  const app: INestApplication =
    env.adapter === 'fastify'
      ? await NestFactory.create(BenchAppModule, new FastifyAdapter(), options)
      : await NestFactory.create(BenchAppModule, options);
  await limiter.prepare?.(app);
  // An orderly exit rather than death by signal, so --cpu-prof writes its profile.
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
  // How late the event loop runs what is due: the part of a request's tail the app's own work
  // and its timers add (docs/benchmarks.md, "At a fixed load").
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let reads = 0;
  process.on('SIGUSR2', () => {
    // The histogram holds the time between the sampling timer's runs: less its interval, the
    // delay (a run a little early reads 0).
    const ms = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS).toFixed(3);
    const figures = [loop.percentile(50), loop.percentile(99), loop.max].map(ms).join(' ');
    process.stdout.write(`${LOOP_MARK} ${++reads} ${figures}\n`);
    loop.reset();
  });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${READY_MARK} ${port}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
