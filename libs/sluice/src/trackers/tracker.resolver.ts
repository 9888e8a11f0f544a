import type { ExecutionContext } from '@nestjs/common';
import type { Tracker } from './tracker.interface.js';
import {
  clientAddress,
  clientIp,
  compileTrustProxy,
  DEFAULT_IPV6_PREFIX,
  type TrustProxy,
} from './client-address.js';

/** Who a request is counted as: the key kind actually used and the identifier under it. */
export interface Tracked {
  /** The policy's key, or `ip` when the request lacked what it names. */
  keyKind: string;
  /** Who, under that key kind. */
  identifier: string;
}

/** Stands for every caller whose address cannot be read (a test double, a unix socket). */
export const UNKNOWN_ADDRESS = 'unknown';

/**
 * Reads what a policy's `key` counts from a request: its client address (`ip`), its user
 * (`user`), a header (`header:<name>`) or a named tracker. A request without a user, the header
 * or a tracker's answer is counted by its client address instead.
 */
export class TrackerResolver {
  private readonly trust: (address: string, hop: number) => boolean;

  constructor(
    trustProxy: TrustProxy | undefined,
    private readonly trackers: Readonly<Record<string, Tracker>> = {},
    /** Leading bits that name an IPv6 client (SluiceModuleOptions.ipv6Prefix). */
    private readonly ipv6Prefix: number = DEFAULT_IPV6_PREFIX,
  ) {
    this.trust = compileTrustProxy(trustProxy);
  }

  /** Whether a policy's `key` names something this resolver can read. */
  knows(keyKind: string): boolean {
    return (
      keyKind === 'ip' ||
      keyKind === 'user' ||
      keyKind.startsWith('header:') ||
      Object.hasOwn(this.trackers, keyKind)
    );
  }

  /** Who the request counts as under `keyKind`, falling back to its client address. */
  async track(request: unknown, keyKind: string, context: ExecutionContext): Promise<Tracked> {
    return this.trackNow(request, keyKind, context);
  }

  /**
   * As `track`, but answered at once when nothing asked is asynchronous (every key but a named
   * tracker that returns a promise): the request path then waits for no turn of the event loop.
   */
  trackNow(
    request: unknown,
    keyKind: string,
    context: ExecutionContext,
  ): Tracked | Promise<Tracked> {
    const byRequest = this.trackByRequest(request, keyKind);
    if (byRequest !== undefined) return byRequest;
    if (keyKind !== 'user' && Object.hasOwn(this.trackers, keyKind)) {
      const answer = (this.trackers[keyKind] as Tracker)(request, context, {
        address: () => this.address(request),
      });
      return isThenable(answer)
        ? Promise.resolve(answer).then((value) => this.trackedAs(request, keyKind, text(value)))
        : this.trackedAs(request, keyKind, text(answer));
    }
    return this.trackedAs(request, keyKind, keyKind === 'user' ? userIdOf(request) : undefined);
  }

  private trackedAs(request: unknown, keyKind: string, identifier: string | undefined): Tracked {
    if (identifier !== undefined) return { keyKind, identifier };
    return { keyKind: 'ip', identifier: this.address(request) };
  }

  /**
   * Who the request counts as when the request alone tells, before any guard or middleware has
   * run: for `ip` and `header:<name>` keys; undefined for `user` and named trackers.
   */
  trackByRequest(request: unknown, keyKind: string): Tracked | undefined {
    if (keyKind.startsWith('header:')) {
      const identifier = headerOf(request, keyKind.slice(7));
      if (identifier !== undefined) return { keyKind, identifier };
    } else if (keyKind !== 'ip') return undefined;
    return { keyKind: 'ip', identifier: this.address(request) };
  }

  /** The client's own address (not grouped by /64), or undefined when it cannot be read. */
  clientIp(request: unknown): string | undefined {
    const raw = field(request, 'raw') ?? request;
    if (typeof raw !== 'object' || raw === null || !('headers' in raw)) return undefined;
    return clientIp(raw as Parameters<typeof clientIp>[0], this.trust);
  }

  /** What `ip` counts: the client address (an IPv6 one by its prefix, /64 unless set), else `unknown`. */
  address(request: unknown): string {
    const raw = field(request, 'raw') ?? request;
    if (typeof raw !== 'object' || raw === null || !('headers' in raw)) return UNKNOWN_ADDRESS;
    return (
      clientAddress(raw as Parameters<typeof clientAddress>[0], this.trust, this.ipv6Prefix) ??
      UNKNOWN_ADDRESS
    );
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The authenticated user's id as Passport and most auth guards leave it on `request.user`. On
 * Fastify, Nest middleware sees the raw request, so a user set there is on `request.raw.user`.
 */
function userIdOf(request: unknown): string | undefined {
  const user = field(request, 'user') ?? field(field(request, 'raw'), 'user');
  return text(field(user, 'id') ?? field(user, 'sub') ?? field(user, 'userId'));
}

function headerOf(request: unknown, name: string): string | undefined {
  const value = field(field(request, 'headers'), name.toLowerCase());
  return text(Array.isArray(value) ? value[0] : value);
}
