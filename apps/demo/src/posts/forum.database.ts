import { startEmbeddedDatabase } from '@sluice/admin';
import { DataSource, MigrationExecutor } from 'typeorm';
import type { DemoConfig } from '../config.js';
import { DatabaseForumStore } from './database-forum.store.js';
import type { ForumStore } from './forum.store.js';
import { MemoryForumStore } from './memory-forum.store.js';
import { Forum1795430000000 } from './migrations/1795430000000-forum.migration.js';
import { PostEntity } from './post.entity.js';
import {
  DatabaseApiKeyStore,
  MemoryApiKeyStore,
  type ApiKeyStore,
} from '../quotes/api-key.store.js';
import { ApiKeys1795950000000 } from '../quotes/migrations/1795950000000-api-keys.migration.js';
import { ReplyEntity } from './reply.entity.js';

/** Held while migrating, so instances starting together on a new database take turns. */
const MIGRATION_LOCK = "hashtext('demo_migrations')";

/** Where the forum keeps its posts, and how to let go of it after the app has closed. */
export interface ForumDatabase {
  store: ForumStore;
  /** The quote API's keys and their plans, in the same database. */
  apiKeys: ApiKeyStore;
  /** For the start-up lines. */
  description: string;
  stop(): Promise<void>;
}

/**
 * Memory when DEMO_POSTS says so; else DATABASE_URL when given (every instance shares the
 * posts); the embedded default's own PGlite beside the admin's (SLUICE_DATA_DIR with "-forum"
 * appended) when the admin is on without one; else this process's memory.
 */
export async function openForumDatabase(config: DemoConfig): Promise<ForumDatabase> {
  if (config.posts === 'memory') return memoryForum('memory (DEMO_POSTS=memory)');
  if (config.databaseUrl !== undefined) {
    const dataSource = await openDataSource(config.databaseUrl, undefined);
    return {
      store: new DatabaseForumStore(dataSource),
      apiKeys: new DatabaseApiKeyStore(dataSource),
      description: 'PostgreSQL (DATABASE_URL)',
      stop: () => dataSource.destroy(),
    };
  }
  if (config.admin) {
    const embedded = await startEmbeddedDatabase({ dataDir: `${config.dataDir}-forum` });
    const dataSource = await openDataSource(embedded.url, embedded.poolSize).catch(
      async (error: unknown) => {
        await embedded.stop();
        throw error;
      },
    );
    return {
      store: new DatabaseForumStore(dataSource),
      apiKeys: new DatabaseApiKeyStore(dataSource),
      description: `an embedded PostgreSQL (PGlite) in ${embedded.dataDir}`,
      stop: async () => {
        await dataSource.destroy();
        await embedded.stop();
      },
    };
  }
  return memoryForum("this process's memory (no DATABASE_URL)");
}

function memoryForum(description: string): ForumDatabase {
  return {
    store: new MemoryForumStore(),
    apiKeys: new MemoryApiKeyStore(),
    description,
    stop: () => Promise.resolve(),
  };
}

async function openDataSource(url: string, poolSize: number | undefined): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    entities: [PostEntity, ReplyEntity],
    migrations: [Forum1795430000000, ApiKeys1795950000000],
    migrationsTableName: 'demo_migrations',
    synchronize: false,
    applicationName: 'sluice-demo',
    ...(poolSize === undefined ? {} : { poolSize }),
  });
  await dataSource.initialize();
  try {
    await migrateInTurn(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

/** TypeORM's runner takes no lock: instances migrating a new database at once take turns here. */
async function migrateInTurn(dataSource: DataSource): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    const migrations = new MigrationExecutor(dataSource, lock);
    migrations.transaction = 'all';
    await migrations.executePendingMigrations();
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    await lock.release();
  }
}
