import { Controller, Get, Injectable, Module, Scope, UseGuards } from '@nestjs/common';
import { LazyModuleLoader } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Throttle } from '../metadata/throttle.decorator.js';
import { startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';
import { RouteRegistry } from './route.registry.js';
import { SluiceGuard } from './sluice.guard.js';
import { classOf } from './route.explorer.js';

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

const LIKE = { name: 'like', algorithm: 'fixed-window', limit: 2, periodMs: 60_000 } as const;

/** What Nest itself reads of every provider's value: its class, a promise's `then`, its hooks. */
const READ_BY_NEST = new Set<PropertyKey>([
  'constructor',
  'then',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);
/**
 * A proxy without a prototype that throws on every other read outside a request, as
 * request-context modules register.
 */
const hostileProxy = new Proxy(Object.create(null) as object, {
  get(_target, property) {
    if (READ_BY_NEST.has(property)) return undefined;
    throw new TypeError(`${String(property)} may be read only inside a request`);
  },
  getOwnPropertyDescriptor() {
    throw new TypeError('no descriptor here');
  },
});
/** One that refuses even its prototype: Nest takes it from a factory, not as a value. */
const prototypeless = new Proxy(
  {},
  {
    getPrototypeOf() {
      throw new TypeError('no prototype here');
    },
  },
);
/** A proxy whose reads all answer undefined, prototype included. */
const emptyProxy = new Proxy(Object.create(null) as object, { get: () => undefined });

class Plain {
  hello(): string {
    return 'hi';
  }
}

/** Every shape a provider's value takes in real apps, keyed by the token it is registered under. */
const VALUES: Array<[string, unknown]> = [
  ['hostile-proxy', hostileProxy],
  ['empty-proxy', emptyProxy],
  ['null-prototype', Object.create(null)],
  ['number', 42],
  ['string', 'text'],
  ['boolean', false],
  ['null', null],
  ['symbol', Symbol('value')],
  ['bigint', 10n],
  ['arrow', () => 'fn'],
  ['class-itself', Plain],
  ['instance', new Plain()],
  ['array', [1, 2]],
  ['map', new Map([[1, 2]])],
  ['date', new Date(0)],
  ['frozen', Object.freeze({ a: 1 })],
];

@Controller('scoped')
@UseGuards(SluiceGuard)
class RequestScopedController {
  @Get()
  @Throttle('like')
  read(): string {
    return 'scoped';
  }
}

@Injectable({ scope: Scope.REQUEST, durable: true })
class DurableService {
  value(): string {
    return 'durable';
  }
}

@Controller({ path: 'durable', scope: Scope.REQUEST, durable: true })
@UseGuards(SluiceGuard)
class DurableController {
  constructor(private readonly service: DurableService) {}

  @Get()
  @Throttle('like')
  read(): string {
    return this.service.value();
  }
}

@Injectable({ scope: Scope.TRANSIENT })
class TransientService {}

@Injectable()
class LazyService {
  ready(): boolean {
    return true;
  }
}

@Module({ providers: [LazyService, { provide: 'lazy-proxy', useValue: hostileProxy }] })
class LazyModule {}

describe('route discovery beside every provider shape', () => {
  it('starts beside proxies, values and factories of every type, scoped and lazy modules', async () => {
    const app = await startMemoryApp(
      [LIKE],
      {},
      {
        controllers: [RequestScopedController, DurableController],
        providers: [
          DurableService,
          TransientService,
          ...VALUES.map(([token, value]) => ({ provide: `value:${token}`, useValue: value })),
          ...VALUES.map(([token, value]) => ({
            provide: `factory:${token}`,
            useFactory: () => value,
          })),
          { provide: 'async-factory', useFactory: () => Promise.resolve(emptyProxy) },
          { provide: 'prototypeless', useFactory: () => prototypeless },
          { provide: 'alias', useExisting: 'value:hostile-proxy' },
        ],
      },
    );
    started.push(app);
    const routes = app.get(RouteRegistry).all();
    // Request-scoped and durable controllers have no instance at start: their routes are found.
    expect(routes.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'GET /durable',
      'GET /like',
      'GET /scoped',
    ]);
    const statuses = [];
    for (let n = 0; n < 3; n++) statuses.push((await fetch(`${app.url}/scoped`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await fetch(`${app.url}/durable`)).status).toBe(429);
    // A module loaded after start, with a proxy among its providers, loads and serves.
    const loaded = await app.app.get(LazyModuleLoader).load(() => LazyModule);
    expect(loaded.get(LazyService).ready()).toBe(true);
  });

  it('reads a class from each wrapper without touching what would throw', () => {
    const throwing = {
      get metatype(): unknown {
        throw new Error('metatype');
      },
    };
    expect(classOf(throwing)).toBeUndefined();
    expect(classOf({ metatype: null, inject: null, instance: hostileProxy })).toBeUndefined();
    const throwsAll = new Proxy(
      {},
      {
        get() {
          throw new TypeError('nothing');
        },
      },
    );
    expect(classOf({ metatype: null, inject: null, instance: throwsAll })).toBeUndefined();
    expect(classOf({ metatype: null, inject: null, instance: emptyProxy })).toBeUndefined();
    expect(classOf({ metatype: () => 1, inject: [], instance: prototypeless })).toBeUndefined();
    expect(classOf({ metatype: () => new Plain(), inject: [], instance: new Plain() })).toBe(Plain);
    expect(classOf({ metatype: () => 1, inject: [], instance: 1 })).toBeUndefined();
    expect(classOf({ metatype: Plain, inject: null, instance: undefined })).toBe(Plain);
    expect(
      classOf({ metatype: null, inject: null, instance: Object.create(null) }),
    ).toBeUndefined();
  });
});
