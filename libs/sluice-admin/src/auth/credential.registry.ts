import { SLUICE_CLOCK, type Clock } from '@sluice/nest/internals';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ADMIN_OPTIONS } from '../config/sluice-admin.tokens.js';
import type { AdminAuthOptions, AdminRole } from '../config/admin-auth-options.interface.js';
import { resolveAuthSettings } from './auth-settings.resolver.js';
import { CredentialSynchronizer, type ConfiguredCredential } from './credential.synchronizer.js';
import { ExpiringCache } from './expiring.cache.js';
import { hashSecret, randomSecret, secretMatches, sha256Hex } from './secret.hasher.js';

/** A credential this process accepts; its secret only as the salted digest made at start. */
export interface ActiveCredential {
  readonly name: string;
  readonly role: AdminRole;
  readonly secretHash: string;
  /** The generation this start stored (credential.synchronizer.ts); a session must match it. */
  readonly generation: number;
}

const ONE_TIME_NAME = 'admin';
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKENS_KEPT = 1_000;

/**
 * The credentials of this process, held in memory so bearer requests are checked without the
 * database. Without configured credentials outside production it invents a one-time admin token.
 */
@Injectable()
export class CredentialRegistry implements OnModuleInit {
  private readonly logger = new Logger('SluiceAdmin');
  private credentials = new Map<string, ActiveCredential>();
  /** Verified tokens by SHA-256, so a script's repeated requests compare digests once a minute. */
  private readonly verifiedTokens: ExpiringCache<ActiveCredential>;
  private readonly verifying = new Map<string, Promise<ActiveCredential | null>>();
  /** Checked against when a name is unknown, so a wrong name costs as long as a wrong password. */
  private decoyHash = '';
  private ttlMs = 0;
  private secure = false;

  constructor(
    @Inject(ADMIN_OPTIONS) private readonly options: { auth?: AdminAuthOptions },
    @Inject(CredentialSynchronizer) private readonly synchronizer: CredentialSynchronizer,
    @Inject(SLUICE_CLOCK) clock: Clock,
  ) {
    this.verifiedTokens = new ExpiringCache(VERIFIED_TOKEN_TTL_MS, VERIFIED_TOKENS_KEPT, clock);
  }

  async onModuleInit(): Promise<void> {
    const settings = resolveAuthSettings(this.options.auth);
    this.ttlMs = settings.sessionTtlMs;
    this.secure = settings.secureCookies;
    const generated = settings.credentials.length === 0;
    const plain = generated
      ? [{ name: ONE_TIME_NAME, role: 'admin' as const, token: randomSecret() }]
      : settings.credentials;
    const configured: ConfiguredCredential[] = plain.map((credential) => ({
      ...credential,
      source: generated ? 'generated' : 'config',
      secretHash: hashSecret(credential.token),
    }));
    this.decoyHash = hashSecret(randomSecret());
    const generations = await this.synchronizer.sync(configured);
    this.credentials = new Map(
      configured.map(({ name, role, secretHash }) => [
        name,
        { name, role, secretHash, generation: generations.get(name) ?? 1 },
      ]),
    );
    if (generated) {
      this.logger.warn(
        `Sluice admin: no credentials configured; sign in as "${ONE_TIME_NAME}" with the one-time token ${plain[0]?.token} (valid until this process stops)`,
      );
    }
  }

  /** Whether every session cookie is marked Secure (auth.secureCookies, default production). */
  get secureCookies(): boolean {
    return this.secure;
  }

  get sessionTtlMs(): number {
    return this.ttlMs;
  }

  byName(name: string): ActiveCredential | undefined {
    return this.credentials.get(name);
  }

  /** The credential whose token this is, or null. */
  /** The credential of a token verified within the last minute, found without comparing. */
  verifiedToken(token: string): ActiveCredential | undefined {
    return this.verifiedTokens.get(sha256Hex(token));
  }

  async matchToken(token: string): Promise<ActiveCredential | null> {
    const key = sha256Hex(token);
    const verified = this.verifiedTokens.get(key);
    if (verified !== undefined) return verified;
    let verifying = this.verifying.get(key);
    if (verifying === undefined) {
      verifying = this.verifyToken(token).finally(() => this.verifying.delete(key));
      this.verifying.set(key, verifying);
    }
    const credential = await verifying;
    if (credential !== null) this.verifiedTokens.set(key, credential);
    return credential;
  }

  /** The credential named, if `password` is its token; null for a wrong name or password alike. */
  matchPassword(name: string, password: string): Promise<ActiveCredential | null> {
    const credential = this.credentials.get(name);
    const matches = secretMatches(credential?.secretHash ?? this.decoyHash, password);
    return Promise.resolve(matches && credential !== undefined ? credential : null);
  }

  /** Compares the token with every credential's digest, so the time taken names none of them. */
  private verifyToken(token: string): Promise<ActiveCredential | null> {
    let found: ActiveCredential | null = null;
    for (const candidate of this.credentials.values()) {
      if (secretMatches(candidate.secretHash, token)) found ??= candidate;
    }
    return Promise.resolve(found);
  }
}
