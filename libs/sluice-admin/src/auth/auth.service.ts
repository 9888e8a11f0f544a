import { Inject, Injectable } from '@nestjs/common';
import { actorOf, type Actor } from './actor.js';
import { CredentialRegistry, type ActiveCredential } from './credential.registry.js';
import { MAX_TOKEN_LENGTH } from './credentials.parser.js';
import { FailureLimiter } from './failure.limiter.js';
import { clientIpOf, cookieOf, headerOf, userAgentOf } from './http.access.js';
import { SESSION_COOKIE } from './session.cookie.js';
import { SessionStore } from './session.store.js';
import {
  notSignedIn,
  TooManySignInFailuresException,
  wrongNameOrPassword,
} from './sign-in.errors.js';

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
/** The shape randomSecret() makes; anything else is refused without a database look-up. */
const SESSION_SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * Says who a request comes from: a bearer token checked in memory, else the panel's session
 * cookie. Failed attempts count per client address; past the limit nothing is checked at all.
 */
@Injectable()
export class AuthService {
  private readonly failures = new FailureLimiter();

  constructor(
    @Inject(CredentialRegistry) private readonly credentials: CredentialRegistry,
    @Inject(SessionStore) private readonly sessions: SessionStore,
  ) {}

  get sessionTtlMs(): number {
    return this.credentials.sessionTtlMs;
  }

  /** Throws 401 (or 429 after too many failures) unless the request carries a valid credential. */
  async authenticate(request: unknown): Promise<Authenticated> {
    const authorization = headerOf(request, 'authorization');
    const cookie = cookieOf(request, SESSION_COOKIE);
    if (authorization === undefined && cookie === undefined) throw notSignedIn();
    const address = clientIpOf(request) ?? '';
    this.refuseIfLimited(address);
    const credential =
      authorization === undefined
        ? await this.sessionCredential(cookie as string)
        : await this.bearerCredential(authorization);
    if (credential === null) {
      this.failures.recordFailure(address);
      throw notSignedIn();
    }
    return {
      actor: { ...this.actorFields(request), name: credential.name, role: credential.role },
      via: authorization === undefined ? 'session' : 'bearer',
    };
  }

  /** Checks name and password (the credential's token) and opens a session; 401 when wrong. */
  async signIn(name: string, password: string, request: unknown): Promise<SignedIn> {
    const address = clientIpOf(request) ?? '';
    this.refuseIfLimited(address);
    const credential = await this.credentials.matchPassword(name, password);
    if (credential === null) {
      this.failures.recordFailure(address);
      throw wrongNameOrPassword();
    }
    const secret = await this.sessions.create({
      credentialName: credential.name,
      role: credential.role,
      expiresAt: new Date(Date.now() + this.sessionTtlMs),
      ...this.actorFields(request),
    });
    return { credential, secret };
  }

  /** Ends the session the request's cookie names, if any, as the actor the guard found. */
  async signOut(request: object): Promise<void> {
    const cookie = cookieOf(request, SESSION_COOKIE);
    const actor = actorOf(request);
    if (cookie === undefined || !SESSION_SECRET.test(cookie) || actor === undefined) return;
    await this.sessions.delete(cookie, actor);
  }

  private async bearerCredential(authorization: string): Promise<ActiveCredential | null> {
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined || token.length > MAX_TOKEN_LENGTH) return null;
    return this.credentials.matchToken(token);
  }

  /** A live session whose credential this process still accepts, with that credential's role. */
  private async sessionCredential(secret: string): Promise<ActiveCredential | null> {
    if (!SESSION_SECRET.test(secret)) return null;
    const session = await this.sessions.find(secret);
    if (session === null) return null;
    return this.credentials.byName(session.credentialName) ?? null;
  }

  private refuseIfLimited(address: string): void {
    const retryAfterMs = this.failures.retryAfterMs(address);
    if (retryAfterMs > 0) throw new TooManySignInFailuresException(retryAfterMs);
  }

  private actorFields(request: unknown): Pick<Actor, 'ip' | 'userAgent'> {
    return { ip: clientIpOf(request), userAgent: userAgentOf(request) };
  }
}
