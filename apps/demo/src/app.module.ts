import {
  Module,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { SluiceAdminModule } from '@sluice/admin';
import { SluiceModule } from '@sluice/nest';
import { AppController } from './app.controller.js';
import { AuthModule } from './auth/auth.module.js';
import { loginTracker } from './auth/login.tracker.js';
import { XUserMiddleware } from './common/x-user.middleware.js';
import type { DemoConfig } from './config.js';
import { FeedModule } from './feed/feed.module.js';
import { NewsModule } from './news/news.module.js';
import { demoPolicies } from './policies.js';
import { PostsModule } from './posts/posts.module.js';

/** The admin API when a database is configured; without one the demo runs without it. */
function adminModule(config: DemoConfig): DynamicModule[] {
  if (config.databaseUrl === undefined) return [];
  return [
    SluiceAdminModule.forRoot({
      database: config.databaseUrl,
      auth: { credentials: config.adminTokens, production: config.nodeEnv === 'production' },
      penalties: { claimIdleMs: config.penaltyClaimIdleMs },
    }),
  ];
}

@Module({})
export class AppModule implements NestModule {
  static forConfig(config: DemoConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SluiceModule.forRoot({
          redis: config.redisUrl,
          prefix: config.prefix,
          policies: demoPolicies(config.login),
          trackers: { login: loginTracker(config.trustProxy) },
          trustProxy: config.trustProxy,
          syncIntervalMs: config.syncIntervalMs,
          heartbeatIntervalMs: config.heartbeatIntervalMs,
          global: true,
          metrics: config.metrics,
        }),
        ...adminModule(config),
        PostsModule,
        NewsModule,
        FeedModule,
        AuthModule,
      ],
      controllers: [AppController],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(XUserMiddleware).forRoutes('*');
  }
}
