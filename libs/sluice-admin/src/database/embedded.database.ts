import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadOptionalPeer } from '@sluice/nest/internals';

type PGliteModule = typeof import('@electric-sql/pglite');
type PGliteSocketModule = typeof import('@electric-sql/pglite-socket');

/** An embedded PostgreSQL (PGlite) served on a loopback port, for `database` in forRoot. */
export interface EmbeddedDatabase {
  /** A postgres:// URL for SluiceAdminModule's `database.url`. */
  url: string;
  /** The directory that holds its files (absolute). */
  dataDir: string;
  /** PGlite runs one query at a time: give the admin a pool of this size. */
  poolSize: 1;
  /** Stops serving and closes the files; call it after the Nest app has closed. */
  stop(this: void): Promise<void>;
}

/** Where startEmbeddedDatabase keeps its data. */
export interface EmbeddedDatabaseOptions {
  /** Where its files live; created when missing. */
  dataDir: string;
}

function loadPGlite(): Promise<[PGliteModule, PGliteSocketModule]> {
  const neededFor = 'startEmbeddedDatabase';
  return Promise.all([
    loadOptionalPeer('@electric-sql/pglite', neededFor, () => import('@electric-sql/pglite')),
    loadOptionalPeer(
      '@electric-sql/pglite-socket',
      neededFor,
      () => import('@electric-sql/pglite-socket'),
    ),
  ]);
}

/**
 * Starts PGlite over `dataDir` and serves it on a free 127.0.0.1 port, so the admin module uses it
 * through TypeORM's postgres driver and the same migrations as a real server. For one process and
 * development: it accepts a single connection and runs one query at a time.
 */
export async function startEmbeddedDatabase(
  options: EmbeddedDatabaseOptions,
): Promise<EmbeddedDatabase> {
  if (typeof options?.dataDir !== 'string' || options.dataDir.trim() === '') {
    throw new Error('startEmbeddedDatabase: dataDir must be a directory path');
  }
  const dataDir = resolve(options.dataDir);
  const [{ PGlite }, { PGLiteSocketServer }] = await loadPGlite();
  // The files hold the admin's credentials hashes, sessions and audit: this user's alone.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const previousUmask = process.umask(0o077);
  let db: InstanceType<PGliteModule['PGlite']>;
  try {
    db = await PGlite.create({ dataDir });
  } finally {
    process.umask(previousUmask);
  }
  await ownerOnly(dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    dataDir,
    poolSize: 1,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Folders 0700 and files 0600 from `directory` down, whatever mode an earlier run left. */
async function ownerOnly(directory: string): Promise<void> {
  await chmod(directory, 0o700);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await ownerOnly(path);
    else if (entry.isFile()) await chmod(path, 0o600);
  }
}
