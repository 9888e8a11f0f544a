import { Injectable } from '@nestjs/common';

/** The admin API's OpenAPI document, once `setupSluiceAdminDocs(app)` has built it. */
@Injectable()
export class AdminDocsStore {
  document: object | undefined;
}
