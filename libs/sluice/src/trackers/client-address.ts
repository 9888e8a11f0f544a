import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';
import { isIpAddress } from '../net/address-range.js';

/** What the module's `trustProxy` option accepts (Express conventions). */
export type TrustProxy =
  boolean | number | string | readonly string[] | ((address: string, hop: number) => boolean);

type TrustFunction = (address: string, hop: number) => boolean;

export interface IncomingRequestLike {
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string | undefined } | null;
}

/** Trusted proxies beyond this many hops from the socket are not followed. */
const MAX_HOPS = 64;
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** Identifiers of addresses seen lately: parsing an address costs more than the rest of a decision. */
const KNOWN_ADDRESSES = 10_000;
const identifiers = new Map<string, string | null>();

/**
 * Compiles trustProxy once. false/undefined: trust nobody (X-Forwarded-For ignored). true: trust
 * every hop. number n: trust n hops from the socket. string / string[]: addresses, CIDRs, or
 * proxy-addr's names 'loopback' | 'linklocal' | 'uniquelocal', comma-separated strings allowed.
 * A function is used as is. Bad values throw RangeError whose message starts with "trustProxy: "
 * and names the bad entry.
 */
export function compileTrustProxy(trustProxy: TrustProxy | undefined): TrustFunction {
  if (typeof trustProxy === 'function') return trustProxy;
  if (trustProxy === undefined || trustProxy === false) return () => false;
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'number') {
    if (!Number.isSafeInteger(trustProxy) || trustProxy < 0) {
      throw new RangeError(
        `trustProxy: ${trustProxy} is not a number of hops (a whole number ≥ 0)`,
      );
    }
    return (_address, hop) => hop < trustProxy;
  }
  const list: unknown = typeof trustProxy === 'string' ? [trustProxy] : trustProxy;
  if (!Array.isArray(list)) {
    throw new RangeError(
      `trustProxy: expected a boolean, number, string, string array or function, got ${describe(list)}`,
    );
  }
  const entries = list
    .flatMap((entry: unknown) =>
      typeof entry === 'string' ? entry.split(',').map((part) => part.trim()) : [entry],
    )
    .filter((entry) => entry !== '')
    .map(checkedTrustEntry);
  return entries.length === 0 ? () => false : proxyAddr.compile(entries);
}

/**
 * The client's address as an identifier string: the first untrusted address walking
 * X-Forwarded-For from the socket back (proxy-addr semantics); IPv4-mapped IPv6 reported as IPv4;
 * other IPv6 addresses grouped by their prefix (/64 unless the module's `ipv6Prefix` says), e.g.
 * "2001:db8:1:2::/64". Returns undefined
 * when the request has no socket address (or, from a test double, one that is not an IP address).
 *
 * proxy-addr's own walk is not used: it returns a garbage entry as the client and visits every
 * hop. Here an entry that is not an IP address stops the walk, and the trusted proxy that passed
 * it on is taken as the client. After MAX_HOPS trusted hops, the address reached is the client.
 */
export function clientAddress(
  request: IncomingRequestLike,
  trust: TrustFunction,
  ipv6Prefix = DEFAULT_IPV6_PREFIX,
): string | undefined {
  const client = clientIp(request, trust);
  return client === undefined ? undefined : knownIdentifier(client, ipv6Prefix);
}

/** How many leading bits of an IPv6 address name its client by default: one site's /64. */
export const DEFAULT_IPV6_PREFIX = 64;

/** Refuses an IPv6 prefix length outside /32 to /128, naming the option. */
export function assertIpv6Prefix(length: unknown, field: string): void {
  if (!Number.isInteger(length) || (length as number) < 32 || (length as number) > 128) {
    throw new RangeError(`${field}: must be an integer from 32 to 128, got ${String(length)}`);
  }
}

/**
 * The client's own address, found as clientAddress finds it but not grouped: what an allow list
 * compares with its ranges. Undefined when the walk ends on something that is not an address.
 */
export function clientIp(request: IncomingRequestLike, trust: TrustFunction): string | undefined {
  const socketAddress = request.socket?.remoteAddress;
  if (socketAddress === undefined) return undefined;
  const forwardedFor = request.headers['x-forwarded-for'];
  if (forwardedFor === undefined) return socketAddress;
  if (!isIpAddress(socketAddress)) return undefined;
  let client = socketAddress;
  let hop = 0;
  for (const forwarded of forwardedNearestFirst(forwardedFor)) {
    if (hop === MAX_HOPS || !trust(client, hop) || !isIpAddress(forwarded)) break;
    client = forwarded;
    hop++;
  }
  return client;
}

/** The identifier of an address, or undefined when it is not one; remembered for the next request. */
function knownIdentifier(address: string, ipv6Prefix: number): string | undefined {
  const known = ipv6Prefix === DEFAULT_IPV6_PREFIX ? address : `${ipv6Prefix}/${address}`;
  let identifier = identifiers.get(known);
  if (identifier === undefined) {
    identifier = isIpAddress(address) ? identifierOf(address, ipv6Prefix) : null;
    if (identifiers.size >= KNOWN_ADDRESSES) identifiers.clear();
    identifiers.set(known, identifier);
  }
  return identifier ?? undefined;
}

/** Reads from the end, so only as much of a huge header is read as the walk takes. */
function* forwardedNearestFirst(header: string | string[] | undefined): Generator<string> {
  const lines = typeof header === 'string' ? [header] : (header ?? []);
  for (const line of lines.toReversed()) {
    for (let end = line.length; end >= 0;) {
      const comma = end === 0 ? -1 : line.lastIndexOf(',', end - 1);
      const entry = line.slice(comma + 1, end).trim();
      if (entry !== '') yield entry;
      end = comma;
    }
  }
}

function identifierOf(address: string, ipv6Prefix: number): string {
  const ip = ipaddr.process(address);
  if (!(ip instanceof ipaddr.IPv6)) return ip.toString();
  if (ipv6Prefix === 128) return ip.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/${ipv6Prefix}`);
  return `${network.toString()}/${ipv6Prefix}`;
}

function checkedTrustEntry(entry: unknown): string {
  if (typeof entry === 'string' && (RANGE_NAMES.has(entry) || isAddressOrRange(entry)))
    return entry;
  throw new RangeError(
    `trustProxy: ${describe(entry)} is not an IP address, a CIDR range or one of ` +
      [...RANGE_NAMES].join(', '),
  );
}

/** IPv4 must be written as four decimal numbers: "1" is a hop count misplaced, not 0.0.0.1. */
function isAddressOrRange(entry: string): boolean {
  const address = entry.split('/', 1)[0] ?? '';
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !ipaddr.IPv6.isValid(address)) return false;
  try {
    proxyAddr.compile(entry);
    return true;
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
