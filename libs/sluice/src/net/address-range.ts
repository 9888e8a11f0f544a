import ipaddr from 'ipaddr.js';

/** Longer than any address with a zone id; a longer entry is garbage, not parsed. */
const MAX_ADDRESS_LENGTH = 64;

/** True for an IPv4 or IPv6 address (not a range), within MAX_ADDRESS_LENGTH. */
export function isIpAddress(text: string): boolean {
  return text.length <= MAX_ADDRESS_LENGTH && ipaddr.isValid(text);
}

/** True for what compileAddressList accepts: an IP address, or a CIDR range of one. */
export function isAddressRange(text: string): boolean {
  return text.length <= MAX_ADDRESS_LENGTH + 4 && parseRange(text) !== undefined;
}

/** An address as parsed once, to test against many ranges. */
export type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** The address parsed (IPv4-mapped IPv6 as IPv4), or undefined when it is not one. */
export function parseAddress(address: string): ParsedAddress | undefined {
  return isIpAddress(address) ? ipaddr.process(address) : undefined;
}

/**
 * A test of parsed addresses against one address or CIDR range (an IPv4 range matches
 * IPv4-mapped IPv6 addresses too); undefined when `entry` is neither.
 */
export function compileAddressRange(entry: string): ((ip: ParsedAddress) => boolean) | undefined {
  const range = parseRange(entry);
  if (range === undefined) return undefined;
  const [network, bits] = range;
  return (ip) => {
    if (ip.kind() === network.kind()) return ip.match(network, bits);
    // An IPv6 range written for IPv4-mapped addresses still matches the IPv4 client.
    return ip instanceof ipaddr.IPv4 && ip.toIPv4MappedAddress().match(network, bits);
  };
}

/**
 * Matches addresses against IP addresses and CIDR ranges, as compileAddressRange; throws naming
 * `field` and the entry that is neither.
 */
export function compileAddressList(entries: unknown, field: string): (address: string) => boolean {
  if (!Array.isArray(entries)) throw new RangeError(`${field}: must be an array of addresses`);
  const ranges = entries.map((entry: unknown, index) => {
    const range = typeof entry === 'string' ? compileAddressRange(entry) : undefined;
    if (range === undefined) {
      throw new RangeError(
        `${field}[${index}]: ${describe(entry)} is not an IP address or a CIDR range`,
      );
    }
    return range;
  });
  if (ranges.length === 0) return () => false;
  return (address) => {
    const ip = parseAddress(address);
    return ip !== undefined && ranges.some((matches) => matches(ip));
  };
}

/** An address (a range of one) or a CIDR range, /0 to /32 or /128; undefined if neither. */
function parseRange(entry: string): [ParsedAddress, number] | undefined {
  const [address = '', bits, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && !ipaddr.IPv6.isValid(address)) return undefined;
  const max = v4 ? 32 : 128;
  if (bits !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(bits)) return undefined;
  const length = bits === undefined ? max : Number(bits);
  if (length > max) return undefined;
  return [ipaddr.parse(address), length];
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
