import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import { isDatabaseUnavailable } from '../common/database-failure.js';

/** TypeORM's Postgres runner can hand a connection back as broken; its typings keep that private. */
interface BreakableRunner {
  releasePostgresConnection?(error: unknown): Promise<void>;
}

/**
 * DataSource.transaction, except when the database stops answering: TypeORM would send ROLLBACK
 * on the silent connection and wait out the query timeout a second time. The connection is
 * discarded instead, and the server rolls back a transaction whose connection is gone.
 */
export async function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  isolation?: IsolationLevel,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  let broken: unknown;
  try {
    await runner.connect();
    await runner.startTransaction(isolation);
    const result = await work(runner.manager);
    await runner.commitTransaction();
    return result;
  } catch (error) {
    if (isDatabaseUnavailable(error)) broken = error;
    else if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw error;
  } finally {
    await release(runner, broken);
  }
}

async function release(runner: QueryRunner, broken: unknown): Promise<void> {
  const breakable = runner as QueryRunner & BreakableRunner;
  if (broken !== undefined && typeof breakable.releasePostgresConnection === 'function') {
    await breakable.releasePostgresConnection(broken);
  } else {
    await runner.release();
  }
}
