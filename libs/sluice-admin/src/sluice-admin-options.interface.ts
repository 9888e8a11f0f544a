import type { AdminAuthOptions } from './auth/admin-auth-options.interface.js';

/** The PostgreSQL the admin keeps policies, revisions and the audit in. */
export interface AdminDatabaseOptions {
  /** postgres:// or postgresql:// URL. */
  url: string;
  /** Connections in the pool. Default 5. */
  poolSize?: number;
  /** How long opening a connection may take, ms. Default 2000. */
  connectTimeoutMs?: number;
  /** How long one query may take, ms. Default 5000. */
  queryTimeoutMs?: number;
}

export interface SluiceAdminModuleOptions {
  /** A postgres:// URL, or the URL with pool settings. */
  database: string | AdminDatabaseOptions;
  auth?: AdminAuthOptions;
}

/** Options fixed when the module is defined, beside forRoot's or forRootAsync's own. */
export interface SluiceAdminModuleExtras {
  /** Where the admin is served: the API at /<path>/api. Default 'sluice'. */
  path?: string;
}
