import type { ModuleMetadata } from '@nestjs/common';
import { SluiceAdminModule } from '@sluice/admin';
import { SluiceModule } from '@sluice/nest';
import { TOKENS } from '../../system/admin-api/app.module.js';
import { ATTEMPTS, AttemptController } from '../../system/admin-penalties/app.module.js';

const CREDENTIALS = `alice:admin:${TOKENS.admin},victor:viewer:${TOKENS.viewer}`;

/** One attempt a minute per X-User, each refusal a block; the panel served from `panelRoot`. */
export function liveApp(options: {
  redisUrl: string | undefined;
  prefix: string;
  databaseUrl: string;
  panelRoot: string;
}): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({
        redis: options.redisUrl,
        prefix: options.prefix,
        policies: [ATTEMPTS],
      }),
      SluiceAdminModule.forRoot({
        database: options.databaseUrl,
        auth: { credentials: CREDENTIALS },
        panel: { root: options.panelRoot },
      }),
    ],
    controllers: [AttemptController],
  };
}
