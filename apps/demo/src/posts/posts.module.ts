import { Module, type DynamicModule } from '@nestjs/common';
import { FORUM_STORE, type ForumStore } from './forum.store.js';
import { PostsController } from './posts.controller.js';
import { PostsService } from './posts.service.js';

@Module({})
export class PostsModule {
  /**
   * The forum over `store` (forum.database.ts opens it before the app starts); global, so the
   * feed reads the same posts.
   */
  static forStore(store: ForumStore): DynamicModule {
    return {
      module: PostsModule,
      global: true,
      controllers: [PostsController],
      providers: [{ provide: FORUM_STORE, useValue: store }, PostsService],
      exports: [PostsService],
    };
  }
}
