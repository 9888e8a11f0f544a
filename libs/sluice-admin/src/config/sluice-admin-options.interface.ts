import type { PenaltyEventType } from '@sluice/nest/internals';
import type { AdminAuthOptions } from './admin-auth-options.interface.js';

/** The PostgreSQL the admin keeps policies, revisions and the audit in. */
export interface AdminDatabaseOptions {
  /** postgres:// or postgresql:// URL. */
  url: string;
  /**
   * The schema that holds the admin's tables and its migrations' record, created at start when
   * missing: keeps them apart from the app's own in a shared database. Default 'public'.
   */
  schema?: string;
  /** Connections in the pool. Default 5. */
  poolSize?: number;
  /** How long opening a connection may take, ms. Default 2000. */
  connectTimeoutMs?: number;
  /** How long one query may take, ms. Default 5000. */
  queryTimeoutMs?: number;
}

/**
 * An HTTP endpoint told of penalty events: a POST of the event's JSON, signed in the
 * `Sluice-Signature` header (`sha256=<hex HMAC-SHA256 of the body with secret>`).
 */
export interface PenaltyWebhook {
  /** http:// or https:// URL. */
  url: string;
  /** At least 16 characters. */
  secret: string;
  /** The event types sent; default all. */
  events?: PenaltyEventType[];
}

/** How the admin records penalty events and whom it tells. */
export interface AdminPenaltyOptions {
  /**
   * How long a stream entry another admin read may stay unacknowledged before this one takes it
   * over (that admin is presumed gone), ms: 100 to 86 400 000. Default 30 000.
   */
  claimIdleMs?: number;
  /**
   * How long the penalty history keeps a block once it has ended, in days: older rows are
   * deleted, an hour apart at most. 1 to 3650; default 90.
   */
  retentionDays?: number;
  /** Endpoints told of each penalty event. */
  webhooks?: PenaltyWebhook[];
}

/** What SluiceAdminModule.forRoot takes (docs/operations.md). */
export interface SluiceAdminModuleOptions {
  /** A postgres:// URL, or the URL with pool settings. */
  database: string | AdminDatabaseOptions;
  /** Credentials and sessions; required in production. */
  auth?: AdminAuthOptions;
  /** The penalty history and its webhooks. */
  penalties?: AdminPenaltyOptions;
}

/** Options fixed when the module is defined, beside forRoot's or forRootAsync's own. */
export interface SluiceAdminModuleExtras {
  /** Where the admin is served: the API at /<path>/api, the panel at /<path>. Default 'sluice'. */
  path?: string;
  /**
   * Serve the panel at /<path>: true (the default) serves the one built into this package, `root`
   * another build's folder (it must hold index.html), false none. Express and Fastify alike.
   */
  panel?: boolean | { root: string };
  /**
   * Also list the admin's routes in the app's own OpenAPI document (`@nestjs/swagger`). Default
   * false: they are described only in the admin's own, by setupSluiceAdminDocs.
   */
  appOpenApi?: boolean;
}
