import type { INestApplication, ModuleMetadata } from '@nestjs/common';

/** What a limiter adds to the tiny app. */
export interface Limiter {
  metadata: Pick<ModuleMetadata, 'imports' | 'providers'>;
  /** Runs once the app is created, before it listens. */
  prepare?(app: INestApplication): Promise<void> | void;
}
