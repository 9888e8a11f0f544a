import { describe, expect, it } from 'vitest';
import { describeDatabase, resolveDatabaseOptions } from './database.options.js';

describe('resolveDatabaseOptions', () => {
  it('takes a URL alone and fills in the pool and timeout defaults', () => {
    expect(resolveDatabaseOptions('postgresql://app@db:5432/sluice')).toEqual({
      url: 'postgresql://app@db:5432/sluice',
      schema: 'public',
      poolSize: 5,
      connectTimeoutMs: 2_000,
      queryTimeoutMs: 5_000,
    });
  });

  it('names every bad field of the object form', () => {
    expect(() =>
      resolveDatabaseOptions({
        url: 'postgres://db/x',
        poolSize: 0,
        queryTimeoutMs: 'long',
        ssl: true,
      }),
    ).toThrow(
      'SluiceAdminModule options.database.poolSize: must be an integer from 1 to 100; ' +
        'SluiceAdminModule options.database.queryTimeoutMs: must be an integer from 100 to 600000; ' +
        'SluiceAdminModule options.database.ssl: is not an option',
    );
  });

  it('takes a schema of its own, and refuses one that is no plain PostgreSQL name', () => {
    expect(resolveDatabaseOptions({ url: 'postgres://db/x', schema: 'sluice_admin' }).schema).toBe(
      'sluice_admin',
    );
    for (const schema of [
      'sluice"; DROP SCHEMA public; --',
      '1st',
      'pg_catalog',
      '',
      'a'.repeat(64),
    ]) {
      expect(() => resolveDatabaseOptions({ url: 'postgres://db/x', schema }), schema).toThrow(
        /^SluiceAdminModule options\.database\.schema: must be a PostgreSQL schema name/,
      );
    }
  });

  it('refuses what is not a PostgreSQL URL without echoing it', () => {
    const attempt = () => resolveDatabaseOptions('mysql://root:secret@db/app');
    expect(attempt).toThrow(
      'SluiceAdminModule options.database: must be a postgres:// or postgresql:// URL',
    );
    expect(() => resolveDatabaseOptions(undefined)).toThrow(/options.database: required/);
  });

  it('describes a database without its password', () => {
    expect(describeDatabase('postgres://app:secret@db:5432/sluice')).toBe(
      'postgres://app@db:5432/sluice',
    );
  });
});
