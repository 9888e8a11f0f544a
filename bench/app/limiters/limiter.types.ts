import type { ModuleMetadata } from '@nestjs/common';

/** What a limiter adds to the tiny app. */
export interface Limiter {
  metadata: Pick<ModuleMetadata, 'imports' | 'providers'>;
}
