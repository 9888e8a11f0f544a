import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, Not, type EntityManager, type Repository } from 'typeorm';
import type { AdminCredential } from '../config/admin-auth-options.interface.js';
import { CredentialEntity, type CredentialSource } from '../database/credential.entity.js';
import { secretMatches } from './secret.hasher.js';
import { SessionEntity } from '../database/session.entity.js';
import { inTransaction } from '../database/transaction.js';

/** A configured credential with its fresh hash; the token is needed once, to spot a changed one. */
export interface ConfiguredCredential extends AdminCredential {
  source: CredentialSource;
  secretHash: string;
}

/** Serialises instances that start at the same time, so none sees the other's half-written rows. */
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('sluice_admin_credential'))";

/**
 * Makes the credential table match this start's configuration: new credentials inserted, changed
 * ones updated, the rest disabled. A credential whose token or role changed, or which is no longer
 * configured, loses its sessions: whoever signed in with the old token is signed out.
 */
@Injectable()
export class CredentialSynchronizer {
  constructor(
    @InjectRepository(CredentialEntity, 'sluice')
    private readonly credentials: Repository<CredentialEntity>,
  ) {}

  /** Resolves each configured credential's generation, as stored once this start is applied. */
  async sync(configured: ConfiguredCredential[]): Promise<Map<string, number>> {
    const generations = new Map<string, number>();
    await inTransaction(this.credentials.manager.connection, async (manager) => {
      await manager.query(LOCK);
      const now = new Date();
      const stored = new Map(
        (await manager.find(CredentialEntity)).map((row) => [row.name, row] as const),
      );
      for (const credential of configured) {
        const row = stored.get(credential.name);
        const generation =
          row === undefined
            ? await this.insert(manager, credential, now)
            : await this.update(manager, row, credential, now);
        generations.set(credential.name, generation);
      }
      const gone = { name: Not(In(configured.map((credential) => credential.name))) };
      await manager.update(
        CredentialEntity,
        { ...gone, disabledAt: IsNull() },
        { disabledAt: now, updatedAt: now },
      );
      await manager.delete(SessionEntity, { credentialName: gone.name });
    });
    return generations;
  }

  private async insert(
    manager: EntityManager,
    credential: ConfiguredCredential,
    now: Date,
  ): Promise<number> {
    await manager.insert(CredentialEntity, {
      name: credential.name,
      role: credential.role,
      secretHash: credential.secretHash,
      source: credential.source,
      createdAt: now,
      updatedAt: now,
      disabledAt: null,
      generation: 1,
    });
    return 1;
  }

  private async update(
    manager: EntityManager,
    row: CredentialEntity,
    credential: ConfiguredCredential,
    now: Date,
  ): Promise<number> {
    const sameToken = secretMatches(row.secretHash, credential.token);
    const sameRole = row.role === credential.role;
    if (!sameToken || !sameRole) {
      await manager.delete(SessionEntity, { credentialName: credential.name });
    }
    // A changed token or role starts a new generation: sessions opened under the old one, even
    // later by an instance still running with the old token, are refused by those that know it.
    const generation = sameToken && sameRole ? row.generation : row.generation + 1;
    if (sameToken && sameRole && row.source === credential.source && row.disabledAt === null) {
      return generation;
    }
    await manager.update(
      CredentialEntity,
      { name: credential.name },
      {
        role: credential.role,
        source: credential.source,
        secretHash: sameToken ? row.secretHash : credential.secretHash,
        updatedAt: now,
        disabledAt: null,
        generation,
      },
    );
    return generation;
  }
}
