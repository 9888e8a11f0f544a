import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, MigrationExecutor, type DataSourceOptions } from 'typeorm';
import { AUTH_ENTITIES, AUTH_MIGRATIONS } from './auth.persistence.js';
import { isDatabaseUnavailable } from '../common/database-failure.js';
import type { SluiceAdminModuleOptions } from '../config/sluice-admin-options.interface.js';
import { ADMIN_DATA_SOURCE, ADMIN_ENTITIES, ADMIN_MIGRATIONS } from './admin.persistence.js';
import { describeDatabase, resolveDatabaseOptions } from './database.options.js';

/**
 * Three attempts half a second apart, each bounded by the 2 s connect timeout: a start with the
 * database down fails within about 7 s instead of after TypeORM's default half minute.
 */
const CONNECT_ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

/** Held while migrating, so instances starting together against a new database take turns. */
const MIGRATION_LOCK = "hashtext('sluice_migrations')";

/**
 * The 'sluice' DataSource: migrations run at start, the schema is never synchronised. The options
 * carry the DataSource's name: @nestjs/typeorm 11.0.0–11.0.3 find the DataSource to close at
 * shutdown by the name in them, and without it app.close() rejects (docs/operations.md).
 */
export function adminTypeOrmOptions(options: SluiceAdminModuleOptions): TypeOrmModuleOptions {
  const database = resolveDatabaseOptions(options?.database);
  return {
    name: ADMIN_DATA_SOURCE,
    type: 'postgres',
    url: database.url,
    // In a schema of its own, raw SQL (the migrations, the admin's queries) finds the tables
    // through the connection's search_path, TypeORM's own through `schema`.
    ...(database.schema === 'public' ? {} : { schema: database.schema }),
    entities: [...ADMIN_ENTITIES, ...AUTH_ENTITIES],
    migrations: [...ADMIN_MIGRATIONS, ...AUTH_MIGRATIONS],
    migrationsRun: false,
    migrationsTableName: 'sluice_migrations',
    synchronize: false,
    poolSize: database.poolSize,
    connectTimeoutMS: database.connectTimeoutMs,
    applicationName: 'sluice-admin',
    extra: {
      ...(database.schema === 'public' ? {} : { options: `-c search_path=${database.schema}` }),
      query_timeout: database.queryTimeoutMs,
      statement_timeout: database.queryTimeoutMs,
    },
    retryAttempts: CONNECT_ATTEMPTS,
    retryDelay: RETRY_DELAY_MS,
    toRetry: isDatabaseUnavailable,
  };
}

/** Opens and migrates the DataSource; a failure says which database, without its password. */
export async function openAdminDataSource(options?: DataSourceOptions): Promise<DataSource> {
  const dataSource = new DataSource(options as DataSourceOptions);
  try {
    await dataSource.initialize();
    await migrateInTurn(dataSource);
    return dataSource;
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    const url = (options as { url?: string } | undefined)?.url ?? '';
    throw new Error(
      `SluiceAdminModule: could not open the policy database ${describeDatabase(url)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * TypeORM's runner takes no lock: two instances migrating a new database at once would both
 * create the tables, and one would fail to start. A session advisory lock makes them take turns;
 * the later ones find every migration applied. The migrations run on the connection that holds
 * the lock, so a pool of one (the embedded database) is enough.
 */
async function migrateInTurn(dataSource: DataSource): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    const { schema } = dataSource.options as { schema?: string };
    // The name is checked by resolveDatabaseOptions: letters, digits and _ only.
    if (schema !== undefined) {
      const found = (await lock.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schema,
      ])) as unknown[];
      if (found.length === 0) await lock.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    }
    const migrations = new MigrationExecutor(dataSource, lock);
    migrations.transaction = 'all';
    await migrations.executePendingMigrations();
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    await lock.release();
  }
}
