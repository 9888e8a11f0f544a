import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  PolicyRegistry,
  SluiceService,
  TrackerResolver,
  type PolicyInput,
} from '@sluice/nest/internals';
import { TooManySignInFailuresException } from './sign-in.errors.js';

/** Every attempt to prove who one is (bearer token, password, session cookie), per client. */
export const SIGN_IN_ATTEMPTS_POLICY = 'sluice-admin.sign-in-attempts';
/** Password sign-ins, per client and credential name. */
export const SIGN_IN_NAME_POLICY = 'sluice-admin.sign-in-name';

/**
 * Repeated offences block longer: a minute, then doubling up to an hour, forgotten after a day.
 * If Redis fails, each instance goes on limiting in its own memory ('local').
 */
const PENALTY = {
  afterViolations: 1,
  blockMs: 60_000,
  escalation: 2,
  maxBlockMs: 3_600_000,
  forgetAfterMs: 86_400_000,
} as const;

/** 20 attempts a minute from one client: plenty for typos, far too few to guess a token. */
const POLICIES: PolicyInput[] = [
  {
    name: SIGN_IN_ATTEMPTS_POLICY,
    algorithm: 'sliding-log',
    limit: 20,
    periodMs: 60_000,
    key: 'ip',
    onStoreError: 'local',
    penalty: PENALTY,
    description: 'Sluice admin: attempts to authenticate, per client address',
  },
  {
    name: SIGN_IN_NAME_POLICY,
    algorithm: 'sliding-log',
    limit: 5,
    periodMs: 60_000,
    key: 'ip',
    onStoreError: 'local',
    penalty: PENALTY,
    description: 'Sluice admin: password sign-ins, per client address and name',
  },
];

/** One charged attempt: given back once the credential proved right. */
export interface Attempt {
  succeeded(): Promise<void>;
}

/**
 * The admin's own sign-in limit, decided by Sluice's engine like any policy: in Redis when the app
 * has one, so every instance shares it. An attempt is charged before its secret is checked, so
 * parallel guesses count as they arrive, and given back when it succeeds. The client is the
 * address SluiceModule's shared TrackerResolver resolves (its `trustProxy`), so one client's
 * lock-out behind a proxy is its own (docs/security.md).
 */
@Injectable()
export class SignInLimiter {
  constructor(
    @Inject(SluiceService) private readonly sluice: SluiceService,
    @Inject(TrackerResolver) private readonly addresses: TrackerResolver,
    @Inject(PolicyRegistry) private readonly policies: PolicyRegistry,
  ) {}

  /** The client's address, as SluiceModule's trustProxy resolves it. */
  clientAddress(request: unknown): string {
    return this.addresses.address(request);
  }

  /** Charges a bearer or password attempt; throws 429 when the client is over its limit. */
  async charge(request: unknown, name?: string): Promise<Attempt> {
    const address = this.clientAddress(request);
    const charged: Array<[string, string]> = [[SIGN_IN_ATTEMPTS_POLICY, address]];
    // The name as typed may hold anything; its digest makes a valid identifier of any of it.
    if (name !== undefined) charged.push([SIGN_IN_NAME_POLICY, `${address}/${digestOf(name)}`]);
    for (const [index, [policy, identifier]] of charged.entries()) {
      // Through SluiceService: a block shows in the penalty history, and a Redis outage is
      // decided by the policy's onStoreError like any other.
      const decision = await this.sluice.consume(this.ensure(policy), identifier, {
        keyKind: 'ip',
      });
      if (!decision.allowed) {
        // What was charged before the refusal goes back: a refused attempt checks nothing.
        await this.refund(charged.slice(0, index));
        throw new TooManySignInFailuresException(decision.retryAfterMs);
      }
    }
    return { succeeded: () => this.refund(charged) };
  }

  /** Gives back charged attempts; while Redis fails they stay counted, which errs on the safe side. */
  private async refund(charged: ReadonlyArray<[string, string]>): Promise<void> {
    await Promise.all(
      charged.map(([policy, identifier]) =>
        this.sluice
          .refund(this.ensure(policy), identifier, { keyKind: 'ip' })
          .catch(() => undefined),
      ),
    );
  }

  /** A session cookie is checked cheaply: refused while limited, charged only when it fails. */
  async refuseIfLimited(request: unknown): Promise<void> {
    const address = this.clientAddress(request);
    const decision = await this.sluice
      .peek(this.ensure(SIGN_IN_ATTEMPTS_POLICY), address, { keyKind: 'ip' })
      .catch(() => undefined);
    if (decision !== undefined && !decision.allowed) {
      throw new TooManySignInFailuresException(decision.retryAfterMs);
    }
  }

  /** Counts a session cookie that did not sign in. */
  async failed(request: unknown): Promise<void> {
    const address = this.clientAddress(request);
    await this.sluice.consume(this.ensure(SIGN_IN_ATTEMPTS_POLICY), address, { keyKind: 'ip' });
  }

  /**
   * The policy's name, registered first unless this instance holds the admin's own definition: a
   * policy snapshot from the admin's database replaces the engine's policies, and may hold none of
   * these, or (written before their names were reserved) another definition, never to be obeyed.
   */
  private ensure(name: string): string {
    const { policies } = this;
    const held = policies.get(name);
    if (held === undefined || !this.own.has(held)) {
      this.own.add(policies.set(POLICIES.find((policy) => policy.name === name)));
    }
    return name;
  }

  /** The policies this limiter registered, as the engine holds them. */
  private readonly own = new WeakSet<object>();
}

function digestOf(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('base64url').slice(0, 22);
}
