import {
  Module,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { ApiKeyMiddleware } from './api-key.middleware.js';
import { API_KEY_STORE, type ApiKeyStore } from './api-key.store.js';
import { QuotesController } from './quotes.controller.js';

@Module({})
export class QuotesModule implements NestModule {
  /** The quote API over `keys` (forum.database.ts opens the demo's database before start). */
  static forStore(keys: ApiKeyStore): DynamicModule {
    return {
      module: QuotesModule,
      controllers: [QuotesController],
      providers: [{ provide: API_KEY_STORE, useValue: keys }, ApiKeyMiddleware],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ApiKeyMiddleware).forRoutes(QuotesController);
  }
}
