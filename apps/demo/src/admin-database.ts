import { startEmbeddedDatabase } from '@sluice/admin';
import { redactedUrl, type DemoConfig } from './config.js';

/** Where the admin keeps policies, penalties and the audit. */
export interface AdminDatabase {
  url: string;
  poolSize: number | undefined;
  /** For the start-up lines: which database, without its password. */
  description: string;
  stop(): Promise<void>;
}

/** DATABASE_URL when given, else PGlite under SLUICE_DATA_DIR; none when the admin is off. */
export async function openAdminDatabase(config: DemoConfig): Promise<AdminDatabase | undefined> {
  if (!config.admin) return undefined;
  if (config.databaseUrl !== undefined) {
    return {
      url: config.databaseUrl,
      poolSize: undefined,
      description: redactedUrl(config.databaseUrl),
      stop: () => Promise.resolve(),
    };
  }
  const embedded = await startEmbeddedDatabase({ dataDir: config.dataDir });
  return {
    url: embedded.url,
    poolSize: embedded.poolSize,
    description: `an embedded PostgreSQL (PGlite) in ${embedded.dataDir}`,
    stop: () => embedded.stop(),
  };
}
