import { SLUICE_CLOCK, type Clock } from '@sluice/nest/internals';
import { Inject, Injectable } from '@nestjs/common';
import { actorOf, type Actor } from '../common/actor.js';
import { CredentialRegistry, type ActiveCredential } from './credential.registry.js';
import { ExpiringCache } from './expiring.cache.js';
import { MAX_TOKEN_LENGTH } from './credentials.parser.js';
import { cookieOf, headerOf, userAgentOf } from './http.access.js';
import { SESSION_COOKIE } from './session.cookie.js';
import { SessionStore } from './session.store.js';
import { SignInLimiter } from './sign-in.limiter.js';
import { notSignedIn, wrongNameOrPassword } from './sign-in.errors.js';

export interface Authenticated {
  actor: Actor;
  /** How the request proved who it is; cookie writes need the CSRF proof, bearer ones do not. */
  via: 'bearer' | 'session';
}

export interface SignedIn {
  credential: ActiveCredential;
  /** For the session cookie; the database keeps only its SHA-256. */
  secret: string;
}

const BEARER = /^Bearer +(\S+) *$/i;
const BEARER_SCHEME = /^Bearer\b/i;
/** The shape randomSecret() makes; anything else is refused without a database look-up. */
const SESSION_SECRET = /^[A-Za-z0-9_-]{43}$/;
/**
 * Session secrets found ended, kept an hour: a panel tab whose session ended keeps polling with
 * it, and counting every poll as a failed sign-in would block its address within a minute
 * (docs/security.md). A secret is charged the first time it fails, and after that refused from
 * memory, neither charged nor looked up again.
 */
const ENDED_SESSIONS_KEPT_MS = 3_600_000;
const ENDED_SESSIONS_KEPT = 10_000;

/**
 * Says who a request comes from: a bearer token checked in memory, else the panel's session
 * cookie. Attempts count per client in SignInLimiter; past the limit nothing is checked at all.
 */
@Injectable()
export class AuthService {
  private readonly endedSessions: ExpiringCache<true>;

  constructor(
    @Inject(CredentialRegistry) private readonly credentials: CredentialRegistry,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(SignInLimiter) private readonly limiter: SignInLimiter,
    @Inject(SLUICE_CLOCK) clock: Clock,
  ) {
    this.endedSessions = new ExpiringCache(ENDED_SESSIONS_KEPT_MS, ENDED_SESSIONS_KEPT, clock);
  }

  get secureCookies(): boolean {
    return this.credentials.secureCookies;
  }

  get sessionTtlMs(): number {
    return this.credentials.sessionTtlMs;
  }

  /** Throws 401 (or 429 after too many failures) unless the request carries a valid credential. */
  async authenticate(request: unknown): Promise<Authenticated> {
    const authorization = headerOf(request, 'authorization');
    const cookie = cookieOf(request, SESSION_COOKIE);
    // A proxy's own Basic credentials are not the panel's: with a session cookie, the cookie counts.
    const bearer =
      authorization !== undefined && (cookie === undefined || BEARER_SCHEME.test(authorization))
        ? authorization
        : undefined;
    if (bearer === undefined && cookie === undefined) throw notSignedIn();
    if (bearer !== undefined) {
      // A token verified within the minute is not compared again: a script's or the panel's repeated
      // requests are only refused while their client is blocked, not charged and refunded.
      const known = this.knownBearer(bearer);
      if (known !== undefined) {
        await this.limiter.refuseIfLimited(request);
        return { actor: this.actorOf(request, known), via: 'bearer' };
      }
      const attempt = await this.limiter.charge(request);
      const credential = await this.bearerCredential(bearer);
      if (credential === null) throw notSignedIn();
      await attempt.succeeded();
      return { actor: this.actorOf(request, credential), via: 'bearer' };
    }
    const secret = cookie as string;
    if (this.endedSessions.get(secret) === true) throw notSignedIn();
    await this.limiter.refuseIfLimited(request);
    const credential = await this.sessionCredential(secret);
    if (credential === null) {
      if (SESSION_SECRET.test(secret)) this.endedSessions.set(secret, true);
      await this.limiter.failed(request);
      throw notSignedIn();
    }
    return { actor: this.actorOf(request, credential), via: 'session' };
  }

  /** Checks name and password (the credential's token) and opens a session; 401 when wrong. */
  async signIn(name: string, password: string, request: unknown): Promise<SignedIn> {
    const attempt = await this.limiter.charge(request, name);
    const credential = await this.credentials.matchPassword(name, password);
    if (credential === null) throw wrongNameOrPassword();
    await attempt.succeeded();
    const secret = await this.sessions.create({
      credentialName: credential.name,
      credentialGeneration: credential.generation,
      role: credential.role,
      expiresAt: new Date(this.sessions.now() + this.sessionTtlMs),
      ...this.actorFields(request),
    });
    return { credential, secret };
  }

  /**
   * Whether a request that opened something long-lived (an event stream) is still signed in: its
   * session has neither ended nor expired. A bearer token stays valid while it is configured.
   */
  async stillSignedIn(request: unknown): Promise<boolean> {
    const authorization = headerOf(request, 'authorization');
    if (authorization !== undefined && BEARER_SCHEME.test(authorization)) return true;
    const cookie = cookieOf(request, SESSION_COOKIE);
    return cookie !== undefined && (await this.sessionCredential(cookie)) !== null;
  }

  /** Ends the session the request's cookie names, if any, as the actor the guard found. */
  async signOut(request: object): Promise<void> {
    const cookie = cookieOf(request, SESSION_COOKIE);
    const actor = actorOf(request);
    if (cookie === undefined || !SESSION_SECRET.test(cookie) || actor === undefined) return;
    await this.sessions.delete(cookie, actor);
  }

  private knownBearer(authorization: string): ActiveCredential | undefined {
    const token = BEARER.exec(authorization)?.[1];
    return token === undefined ? undefined : this.credentials.verifiedToken(token);
  }

  private async bearerCredential(authorization: string): Promise<ActiveCredential | null> {
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined || token.length > MAX_TOKEN_LENGTH) return null;
    return this.credentials.matchToken(token);
  }

  /**
   * A live session whose credential this process still accepts, with that credential's role: a
   * session opened under an earlier generation (its token or role changed since) is not.
   */
  private async sessionCredential(secret: string): Promise<ActiveCredential | null> {
    if (!SESSION_SECRET.test(secret)) return null;
    const session = await this.sessions.find(secret);
    if (session === null) return null;
    const credential = this.credentials.byName(session.credentialName);
    if (credential === undefined || credential.generation !== session.credentialGeneration) {
      return null;
    }
    return credential;
  }

  private actorOf(request: unknown, credential: ActiveCredential): Actor {
    return { ...this.actorFields(request), name: credential.name, role: credential.role };
  }

  /** The client as SluiceModule's trustProxy resolves it: audit and session rows record it. */
  private actorFields(request: unknown): Pick<Actor, 'ip' | 'userAgent'> {
    return { ip: this.limiter.clientAddress(request), userAgent: userAgentOf(request) };
  }
}
