import {
  Module,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { SluiceAdminModule } from '@sluice/admin';
import { SluiceModule } from '@sluice/nest/internals';
import { AppController } from './app.controller.js';
import { AuthModule } from './auth/auth.module.js';
import { loginTracker } from './auth/login.tracker.js';
import { XUserMiddleware } from './common/x-user.middleware.js';
import type { AdminDatabase } from './admin-database.js';
import type { DemoConfig } from './config.js';
import type { ForumDatabase } from './posts/forum.database.js';
import { FeedModule } from './feed/feed.module.js';
import { NewsModule } from './news/news.module.js';
import { demoPolicies } from './policies.js';
import { PostsModule } from './posts/posts.module.js';
import { planOf } from './quotes/api-key.middleware.js';
import { QuotesModule } from './quotes/quotes.module.js';

/** The admin API and panel, unless SLUICE_ADMIN is off. */
function adminModule(config: DemoConfig, database: AdminDatabase | undefined): DynamicModule[] {
  if (database === undefined) return [];
  return [
    SluiceAdminModule.forRoot({
      database: { url: database.url, poolSize: database.poolSize },
      auth: { credentials: config.adminTokens, production: config.nodeEnv === 'production' },
      penalties: { claimIdleMs: config.penaltyClaimIdleMs },
    }),
  ];
}

@Module({})
export class AppModule implements NestModule {
  static forConfig(
    config: DemoConfig,
    database: AdminDatabase | undefined,
    forum: ForumDatabase,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SluiceModule.forRoot({
          redis: config.redisUrl,
          prefix: config.prefix,
          policies: demoPolicies(config.login).map((policy) =>
            config.onStoreError ? { ...policy, onStoreError: config.onStoreError } : policy,
          ),
          timeoutMs: config.timeoutMs,
          trackers: { login: loginTracker },
          trustProxy: config.trustProxy,
          syncIntervalMs: config.syncIntervalMs,
          heartbeatIntervalMs: config.heartbeatIntervalMs,
          global: true,
          metrics: config.metrics,
          // The quote API's plan, looked up by ApiKeyMiddleware before the guard runs; an API
          // key's own, where an operator reads or credits its quota.
          tiers: {
            resolve: planOf,
            ofIdentifier: (identifier, keyKind) =>
              keyKind === 'header:x-api-key' ? forum.apiKeys.planOf(identifier) : undefined,
          },
        }),
        ...adminModule(config, database),
        PostsModule.forStore(forum.store),
        NewsModule,
        FeedModule,
        AuthModule,
        QuotesModule.forStore(forum.apiKeys),
      ],
      controllers: [AppController],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(XUserMiddleware).forRoutes('*');
  }
}
