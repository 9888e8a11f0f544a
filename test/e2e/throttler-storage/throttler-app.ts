// A small app on @nestjs/throttler whose storage is Sluice.
import { Controller, Get, type ModuleMetadata } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  SkipThrottle,
  Throttle,
  ThrottlerGuard,
  ThrottlerModule,
  type ThrottlerModuleOptions,
} from '@nestjs/throttler';
import { SluiceEngine } from '@sluice/nest/internals';
import { SluiceThrottlerStorage } from '@sluice/nest/src/throttler/sluice-throttler.storage.js';

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

/** ThrottlerGuard guarding every route, with the engine as the throttler's storage. */
export function throttlerApp(
  engine: SluiceEngine,
  wiring: 'instance' | 'provider' = 'instance',
): ModuleMetadata {
  return {
    imports: [wiring === 'instance' ? withStorageInstance(engine) : withStorageProvider(engine)],
    controllers: [GreetingController],
    providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
  };
}
