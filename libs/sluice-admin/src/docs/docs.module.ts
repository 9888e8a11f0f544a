import { Module } from '@nestjs/common';
import { AdminAuthModule } from '../auth/auth.module.js';
import { AdminDocsStore } from './admin-docs.store.js';
import { DocsController } from './docs.controller.js';

/** GET /docs: the OpenAPI document setupSluiceAdminDocs built, behind the admin's auth. */
@Module({
  imports: [AdminAuthModule],
  controllers: [DocsController],
  providers: [AdminDocsStore],
  exports: [AdminDocsStore],
})
export class DocsModule {}
