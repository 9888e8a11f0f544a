import {
  Module,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
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
          global: true,
        }),
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
