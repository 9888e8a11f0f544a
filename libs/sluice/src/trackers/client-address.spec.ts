import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertIpv6Prefix,
  clientAddress,
  compileTrustProxy,
  type IncomingRequestLike,
  type TrustProxy,
} from './client-address.js';
import { compileAddressList } from '../net/address-range.js';

function request(
  socketAddress: string | undefined,
  forwardedFor?: string | string[],
): IncomingRequestLike {
  return { headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: socketAddress } };
}

function clientOf(
  trustProxy: TrustProxy | undefined,
  socketAddress: string | undefined,
  forwardedFor?: string | string[],
): string | undefined {
  return clientAddress(request(socketAddress, forwardedFor), compileTrustProxy(trustProxy));
}

function refusal(trustProxy: unknown): string {
  try {
    compileTrustProxy(trustProxy as TrustProxy);
  } catch (error) {
    expect(error).toBeInstanceOf(RangeError);
    return (error as RangeError).message;
  }
  throw new Error(`expected trustProxy ${String(trustProxy)} to be refused`);
}

describe('clientAddress without a trusted proxy', () => {
  it.each([undefined, false, 0, '', []] as const)(
    'ignores a spoofed X-Forwarded-For when trustProxy is %j',
    (trustProxy) => {
      expect(clientOf(trustProxy, '198.51.100.7', '203.0.113.9')).toBe('198.51.100.7');
    },
  );

  it('is undefined when the request has no socket address', () => {
    const trustAll = compileTrustProxy(true);
    expect(clientAddress({ headers: {} }, trustAll)).toBeUndefined();
    expect(clientAddress({ headers: {}, socket: null }, trustAll)).toBeUndefined();
    expect(clientAddress(request(undefined, '203.0.113.9'), trustAll)).toBeUndefined();
  });
});

describe('clientAddress behind trusted proxies', () => {
  const chain = '203.0.113.9, 198.51.100.7, 10.0.0.2';

  it('takes the leftmost address when every hop is trusted', () => {
    expect(clientOf(true, '10.0.0.1', chain)).toBe('203.0.113.9');
  });

  it('trusts a number of hops counted from the socket', () => {
    expect(clientOf(1, '10.0.0.1', chain)).toBe('10.0.0.2');
    expect(clientOf(2, '10.0.0.1', chain)).toBe('198.51.100.7');
    expect(clientOf(3, '10.0.0.1', chain)).toBe('203.0.113.9');
    expect(clientOf(10, '10.0.0.1', chain)).toBe('203.0.113.9');
  });

  it('stops at the first address outside the trusted ranges', () => {
    const ranges = ['10.0.0.0/8', '192.168.0.0/16'];
    const forwardedFor = '6.6.6.6, 203.0.113.9, 192.168.1.1';
    expect(clientOf(ranges, '10.0.0.5', forwardedFor)).toBe('203.0.113.9');
    expect(clientOf(ranges.join(', '), '10.0.0.5', forwardedFor)).toBe('203.0.113.9');
    expect(clientOf(ranges, '172.16.0.1', forwardedFor)).toBe('172.16.0.1');
  });

  it("trusts local proxies when given 'loopback'", () => {
    expect(clientOf('loopback', '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(clientOf('loopback', '::1', '203.0.113.9')).toBe('203.0.113.9');
    expect(clientOf('loopback', '::ffff:127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(clientOf('loopback', '10.0.0.1', '203.0.113.9')).toBe('10.0.0.1');
  });

  it('reads repeated X-Forwarded-For headers in order', () => {
    const repeated = ['203.0.113.9', '198.51.100.7, 10.0.0.2'];
    expect(clientOf(2, '10.0.0.1', repeated)).toBe('198.51.100.7');
    expect(clientOf(3, '10.0.0.1', repeated)).toBe('203.0.113.9');
  });

  it('uses a trust function as is, with the hop counted from the socket', () => {
    const seen: [string, number][] = [];
    const trust = (address: string, hop: number) => {
      seen.push([address, hop]);
      return address.startsWith('10.');
    };
    expect(clientAddress(request('10.0.0.1', '203.0.113.9, 10.0.0.2'), trust)).toBe('203.0.113.9');
    expect(seen).toEqual([
      ['10.0.0.1', 0],
      ['10.0.0.2', 1],
    ]);
  });
});

describe('clientAddress identifiers', () => {
  it('groups IPv6 addresses by their /64, whatever their spelling', () => {
    const sameNetwork = [
      '2001:db8:1:2::1',
      '2001:DB8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0009',
    ];
    for (const address of sameNetwork) {
      expect(clientOf(false, address)).toBe('2001:db8:1:2::/64');
      expect(clientOf(true, '10.0.0.1', address)).toBe('2001:db8:1:2::/64');
    }
    expect(clientOf(false, '2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientOf(false, '2001:db8::1')).toBe('2001:db8::/64');
  });

  it('reports IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(clientOf(false, '::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientOf(true, '::1', '::FFFF:198.51.100.7')).toBe('198.51.100.7');
  });

  it('groups IPv6 addresses by the prefix length asked for, /32 to /128', () => {
    const at = (length: number, address: string) =>
      clientAddress(request(address), compileTrustProxy(false), length);
    expect(at(48, '2001:db8:1:2::9')).toBe('2001:db8:1::/48');
    expect(at(56, '2001:db8:1:2ff::9')).toBe('2001:db8:1:200::/56');
    expect(at(32, '2001:db8:ffff::1')).toBe('2001:db8::/32');
    expect(at(128, '2001:DB8::9')).toBe('2001:db8::9');
    // The same address under two lengths: each answer its own, whatever was asked first.
    expect(at(64, '2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(at(56, '::ffff:203.0.113.9')).toBe('203.0.113.9');
    for (const bad of [31, 129, 64.5, Number.NaN]) {
      expect(() => assertIpv6Prefix(bad, 'ipv6Prefix')).toThrow(
        /ipv6Prefix: must be an integer from 32 to 128/,
      );
    }
  });
});

describe('clientAddress given a hostile X-Forwarded-For', () => {
  it('stops at an entry that is not an IP address and keeps the trusted hop before it', () => {
    expect(clientOf(true, '10.0.0.1', '203.0.113.9, not-an-ip, 198.51.100.7')).toBe('198.51.100.7');
    expect(clientOf(true, '10.0.0.1', '203.0.113.9:443')).toBe('10.0.0.1');
    expect(clientOf(true, '10.0.0.1', `${'1'.repeat(1_000_000)}`)).toBe('10.0.0.1');
  });

  it('skips empty entries', () => {
    expect(clientOf(true, '10.0.0.1', ',,203.0.113.9, ,,')).toBe('203.0.113.9');
    expect(clientOf(true, '10.0.0.1', ','.repeat(100_000))).toBe('10.0.0.1');
  });

  it('follows at most 64 trusted hops', () => {
    const hops = Array.from({ length: 10_000 }, (_, index) => `10.${index >> 8}.${index & 255}.1`);
    const client = clientOf(true, '10.255.255.1', hops.join(', '));
    expect(client).toBe(hops[hops.length - 64]);
  });

  it('never throws, and answers an IPv4 address or an IPv6 /64', () => {
    const entry = fc.oneof(fc.ipV4(), fc.ipV6(), fc.string(), fc.constantFrom('', ' ', ',', '::'));
    const header = fc.oneof(
      fc.array(entry).map((entries) => entries.join(',')),
      fc.array(fc.string()),
    );
    fc.assert(
      fc.property(fc.constantFrom<TrustProxy>(true, 3, 'loopback'), header, (trust, xff) => {
        const client = clientOf(trust, '127.0.0.1', xff);
        expect(client).toMatch(/^(\d{1,3}(\.\d{1,3}){3}|[\da-f:]+\/64)$/);
      }),
    );
  });
});

describe('compileTrustProxy', () => {
  it.each([
    [-1, '-1'],
    [1.5, '1.5'],
    [Number.NaN, 'NaN'],
    ['nonsense', '"nonsense"'],
    ['10.0.0.0/8, 10.0.0.0/33', '"10.0.0.0/33"'],
    [['10.0.0.0/8', '0.0.0.0/0'], '"0.0.0.0/0"'],
    ['LOOPBACK', '"LOOPBACK"'],
    ['1', '"1"'],
    [[42], '42'],
    [null, 'null'],
  ])('refuses %j, naming it', (trustProxy, named) => {
    const message = refusal(trustProxy);
    expect(message.startsWith('trustProxy: ')).toBe(true);
    expect(message).toContain(named);
  });

  it('accepts addresses, CIDR ranges, netmasks and named ranges', () => {
    const trust = compileTrustProxy([
      '198.51.100.7',
      '10.0.0.0/255.0.0.0',
      '2001:db8::/32',
      'linklocal, uniquelocal',
    ]);
    expect(trust('198.51.100.7', 0)).toBe(true);
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('2001:db8:ffff::1', 0)).toBe(true);
    expect(trust('169.254.0.1', 0)).toBe(true);
    expect(trust('192.168.0.1', 0)).toBe(true);
    expect(trust('203.0.113.9', 0)).toBe(false);
  });
});

describe('compileAddressList', () => {
  it('matches addresses and ranges, IPv4 ranges IPv4-mapped addresses too', () => {
    const allowed = compileAddressList(['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'], 'allow');
    expect(
      ['127.0.0.1', '::ffff:127.0.0.1', '10.200.1.1', '2001:db8:ffff::1'].map(allowed),
    ).toEqual([true, true, true, true]);
    expect(['127.0.0.2', '11.0.0.1', '2001:db9::1', 'unknown', ''].map(allowed)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('takes /0 for every address of its family and /128 for one', () => {
    const everyV4 = compileAddressList(['0.0.0.0/0'], 'allow');
    expect([everyV4('203.0.113.9'), everyV4('2001:db8::1')]).toEqual([true, false]);
    const one = compileAddressList(['2001:db8::1/128'], 'allow');
    expect([one('2001:db8::1'), one('2001:db8::2')]).toEqual([true, false]);
  });

  it('refuses what is not an address or a range, naming the entry', () => {
    expect(() => compileAddressList(['127.0.0.1', 'localhost'], 'allow.addresses')).toThrow(
      'allow.addresses[1]: "localhost" is not an IP address or a CIDR range',
    );
    expect(() => compileAddressList(['10.0.0.0/33'], 'allow.addresses')).toThrow(/\[0\]/);
    expect(() => compileAddressList('127.0.0.1', 'allow.addresses')).toThrow(/must be an array/);
  });
});
