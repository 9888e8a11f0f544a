import type { AdminRole } from '../common/admin-role.js';

export type { AdminRole };

/** One operator's way in: a name, a role and a secret. */
export interface AdminCredential {
  /** Who: recorded as the actor of every write. */
  name: string;
  /** What they may do: viewer reads, operator also blocks, resets and overrides, admin all. */
  role: AdminRole;
  /** The secret sent as `Authorization: Bearer <token>` or as the panel's password. */
  token: string;
}

/** Who may use the admin API and panel, and how sessions behave (docs/security.md). */
export interface AdminAuthOptions {
  /** Credentials: a list, or the SLUICE_ADMIN_TOKENS form "alice:admin:s3cret,bob:viewer:t0ken". */
  credentials?: AdminCredential[] | string;
  /** Default: process.env.NODE_ENV === 'production'. Production without credentials refuses to start. */
  production?: boolean;
  /** Session lifetime, ms. Default 8 h. */
  sessionTtlMs?: number;
  /**
   * Mark the session cookie Secure on every sign-in, so a browser sends it over https only.
   * Default: `production`. Set false for a deployment served over plain http; without it, the
   * cookie is Secure when the request came over https.
   */
  secureCookies?: boolean;
}
