// A small app on @nestjs/throttler whose storage is Sluice, listening on a free port.
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  SkipThrottle,
  Throttle,
  ThrottlerGuard,
  ThrottlerModule,
  type ThrottlerModuleOptions,
} from '@nestjs/throttler';
import { SluiceEngine } from '@sluice/nest';
import { SluiceThrottlerStorage } from '../../libs/sluice/src/throttler/sluice-throttler.storage.js';

const throttlers = [{ limit: 3, ttl: 60_000 }];

@Controller()
class GreetingController {
  @Get('hello')
  hello(): string {
    return 'hello';
  }

  @SkipThrottle()
  @Get('health')
  health(): string {
    return 'ok';
  }

  @Throttle({ default: { limit: 1, ttl: 1_000, blockDuration: 10_000 } })
  @Get('strict')
  strict(): string {
    return 'strict';
  }
}

/** The storage built by hand, as `ThrottlerModule.forRoot` takes it. */
function withStorageInstance(engine: SluiceEngine) {
  return ThrottlerModule.forRoot({ throttlers, storage: new SluiceThrottlerStorage(engine) });
}

/** The storage as a Nest provider, injected with the engine the app provides. */
function withStorageProvider(engine: SluiceEngine) {
  return ThrottlerModule.forRootAsync({
    imports: [
      {
        module: class EngineModule {},
        providers: [{ provide: SluiceEngine, useValue: engine }, SluiceThrottlerStorage],
        exports: [SluiceThrottlerStorage],
      },
    ],
    inject: [SluiceThrottlerStorage],
    useFactory: (storage: SluiceThrottlerStorage): ThrottlerModuleOptions => ({
      throttlers,
      storage,
    }),
  });
}

export async function startApp(
  engine: SluiceEngine,
  wiring: 'instance' | 'provider' = 'instance',
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({
    imports: [wiring === 'instance' ? withStorageInstance(engine) : withStorageProvider(engine)],
    controllers: [GreetingController],
    providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl() };
}
