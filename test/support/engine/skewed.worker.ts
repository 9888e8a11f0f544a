// A process whose clock is wrong by SLUICE_TEST_SKEW_MS, for test/measured/engine/clock-skew.spec.ts; run with
// `node --import tsx`. The clock is faked before the engine is imported: Date (Date.now and
// `new Date()`) and performance.timeOrigin (so timeOrigin + performance.now(), the library's
// systemClock, is skewed too; performance.now() itself is a duration and stays monotonic).
import type { Decision, PolicyInput, SluiceEngine as Engine } from '@sluice/nest/internals';

const skewMs = Number(process.env.SLUICE_TEST_SKEW_MS ?? 'NaN');
if (!Number.isFinite(skewMs)) throw new Error('SLUICE_TEST_SKEW_MS must be set to a number');

const RealDate = Date;
const realNow = Date.now.bind(Date);
const skewedNow = (): number => realNow() + skewMs;
const SkewedDate = function (this: unknown, ...args: unknown[]): unknown {
  if (new.target === undefined) return new RealDate(skewedNow()).toString();
  return Reflect.construct(RealDate, args.length === 0 ? [skewedNow()] : args, new.target);
} as unknown as DateConstructor;
Object.setPrototypeOf(SkewedDate, RealDate);
Object.defineProperty(SkewedDate, 'prototype', { value: RealDate.prototype });
Object.defineProperty(SkewedDate, 'now', { value: skewedNow });
globalThis.Date = SkewedDate;
Object.defineProperty(performance, 'timeOrigin', {
  value: performance.timeOrigin + skewMs,
  configurable: true,
});

const { Redis } = await import('ioredis');
const { RedisStore, SluiceEngine, systemClock } = await import('@sluice/nest/engine');

export type ConsumeRequest = {
  type: 'consume';
  prefix: string;
  policy: PolicyInput;
  identifier: string;
  /**
   * 'redis': the production setting, time from Redis TIME. 'app': the store is given this
   * process's (skewed) clock, the test-only option: the control that shows skew would matter.
   */
  clock: 'redis' | 'app';
};

type Message = { type: 'init'; url: string } | ConsumeRequest;

const send = (message: object): void => {
  process.send?.(message);
};

let client: InstanceType<typeof Redis> | undefined;
const engines = new Map<string, Engine>();

function engineFor(request: ConsumeRequest): Engine {
  if (!client) throw new Error("'consume' before 'init'");
  const id = `${request.clock} ${request.prefix} ${JSON.stringify(request.policy)}`;
  let engine = engines.get(id);
  if (!engine) {
    const store = new RedisStore(client, request.clock === 'app' ? { clock: systemClock } : {});
    engine = new SluiceEngine({ store, prefix: request.prefix, policies: [request.policy] });
    engines.set(id, engine);
  }
  return engine;
}

async function handle(message: Message): Promise<void> {
  if (message.type === 'init') {
    client = new Redis(message.url, { maxRetriesPerRequest: 1 });
    await client.ping();
    send({
      type: 'ready',
      dateNow: Date.now(),
      newDate: new Date().getTime(),
      systemClockUs: systemClock(),
    });
    return;
  }
  const decision: Decision = await engineFor(message).consume(
    message.policy.name,
    message.identifier,
  );
  send({ type: 'decision', decision });
}

process.on('message', (message: Message) => {
  handle(message).catch((error: unknown) => {
    send({
      type: 'error',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  });
});
process.on('disconnect', () => {
  void client?.quit().catch(() => undefined);
  process.exit(0);
});
send({ type: 'started', pid: process.pid, skewMs });
