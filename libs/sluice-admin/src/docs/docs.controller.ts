import { Get, Inject, NotFoundException, UseGuards } from '@nestjs/common';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { AdminDocsStore } from './admin-docs.store.js';
import { AdminController } from '../common/admin-controller.decorator.js';

@AdminController('docs')
@UseGuards(AdminAuthGuard)
export class DocsController {
  constructor(@Inject(AdminDocsStore) private readonly docs: AdminDocsStore) {}

  /** The OpenAPI 3 description of this API, for anyone allowed to read it. */
  @Get()
  @RequireRole('viewer')
  describe(): object {
    if (this.docs.document !== undefined) return this.docs.document;
    throw new NotFoundException({
      statusCode: 404,
      error: 'Not Found',
      message:
        'The API description is not built: call setupSluiceAdminDocs(app) from @sluice/admin before app.listen()',
    });
  }
}
