import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { SLUICE_CLOCK, type Clock } from '@sluice/nest/internals';
import { LessThan, type EntityManager, type Repository } from 'typeorm';
import { recordAudit } from '../database/audit.recorder.js';
import { readSetting } from '../database/snapshot.reader.js';
import type { Actor } from '../common/actor.js';
import type { AdminRole } from '../config/admin-auth-options.interface.js';
import { ExpiringCache } from './expiring.cache.js';
import { randomSecret, sha256Hex } from './secret.hasher.js';
import { SessionEntity } from '../database/session.entity.js';
import { inTransaction } from '../database/transaction.js';

export interface SessionHolder {
  credentialName: string;
  /** The credential's generation when the session was opened. */
  credentialGeneration: number;
  role: AdminRole;
  expiresAt: Date;
}

export interface NewSession extends SessionHolder {
  ip: string | null;
  userAgent: string | null;
}

const SESSION_CACHE_TTL_MS = 1_000;
const SESSIONS_CACHED = 10_000;

/**
 * Panel sessions in the database, found by the SHA-256 of the cookie's secret. A session read
 * once is served from memory for a second: a panel's bursts of requests cost one query, and a
 * sign-out on another instance reaches this one within that second (docs/security.md).
 */
@Injectable()
export class SessionStore {
  private readonly cache: ExpiringCache<SessionHolder>;

  constructor(
    @InjectRepository(SessionEntity, 'sluice') private readonly sessions: Repository<SessionEntity>,
    // SluiceModule's clock (microseconds), so a test can move time past a session's expiry.
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {
    this.cache = new ExpiringCache(SESSION_CACHE_TTL_MS, SESSIONS_CACHED, clock);
  }

  /** Now, in milliseconds since the epoch. */
  now(): number {
    return Math.floor(this.clock() / 1_000);
  }

  /** Stores and audits a session, returns the secret for its cookie; forgets expired ones. */
  async create(session: NewSession): Promise<string> {
    const secret = randomSecret();
    await inTransaction(this.sessions.manager.connection, async (manager) => {
      await manager.delete(SessionEntity, { expiresAt: LessThan(new Date(this.now())) });
      await manager.insert(SessionEntity, {
        id: sha256Hex(secret),
        createdAt: new Date(this.now()),
        ...session,
      });
      const { credentialName: name, role, ip, userAgent } = session;
      const actor = { name, role, ip, userAgent };
      await audit(manager, actor, 'session.sign-in', {
        expiresAt: session.expiresAt.toISOString(),
      });
    });
    return secret;
  }

  /** The live session with this secret, or null (unknown or expired). */
  async find(secret: string): Promise<SessionHolder | null> {
    const id = sha256Hex(secret);
    let session = this.cache.get(id);
    if (session === undefined) {
      const row = await this.sessions.findOneBy({ id });
      if (row === null) return null;
      session = {
        credentialName: row.credentialName,
        credentialGeneration: row.credentialGeneration,
        role: row.role,
        expiresAt: row.expiresAt,
      };
      this.cache.set(id, session);
    }
    return session.expiresAt.getTime() > this.now() ? session : null;
  }

  /** Ends the session with this secret, auditing it as `actor` signing out. */
  async delete(secret: string, actor: Actor): Promise<void> {
    const id = sha256Hex(secret);
    this.cache.delete(id);
    await inTransaction(this.sessions.manager.connection, async (manager) => {
      const { affected } = await manager.delete(SessionEntity, { id });
      if (affected !== 0) await audit(manager, actor, 'session.sign-out', null);
    });
  }
}

/** Sign-ins and sign-outs join the admin audit; the version is the current one, not bumped. */
async function audit(
  manager: EntityManager,
  actor: Actor,
  action: string,
  after: object | null,
): Promise<void> {
  const { version } = await readSetting(manager);
  await recordAudit(manager, {
    actor,
    action,
    target: 'session',
    before: null,
    after,
    comment: null,
    version,
  });
}
