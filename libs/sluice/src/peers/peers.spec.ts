import { describe, expect, it } from 'vitest';
import { loadOptionalPeer } from './optional-peer.loader.js';
import { installedVersion, unsupportedVersion } from './peer.versions.js';
import { unsupportedRedis } from './redis-server.check.js';
import { SluiceStartError } from './start.error.js';

describe('unsupportedVersion', () => {
  it.each(['11.0.0', '11.1.6', '12.5.1'])('accepts @nestjs/core %s', (version) => {
    expect(unsupportedVersion('@nestjs/core', version)).toBeUndefined();
  });

  it.each([
    [
      '@nestjs/core',
      '10.4.15',
      /@nestjs\/core 11\.x or 12\.x .* 10\.4\.15 is installed: npm install @nestjs\/core@12$/,
    ],
    [
      'ioredis',
      '4.28.5',
      /ioredis 5\.x or 6\.x \(from 5\.9\.0\), and 4\.28\.5 .*npm install ioredis@6$/,
    ],
    ['ioredis', '5.8.2', /and 5\.8\.2 is installed/],
    ['ioredis', '7.0.0', /and 7\.0\.0 is installed/],
  ])('refuses %s %s, naming the supported versions and the fix', (name, version, message) => {
    expect(unsupportedVersion(name, version)).toMatch(message);
  });

  it('reads the version of an installed package, and nothing for a missing one', () => {
    expect(installedVersion('@nestjs/core')).toMatch(/^\d+\.\d+\.\d+/);
    expect(installedVersion('sluice-no-such-package')).toBeUndefined();
  });
});

describe('unsupportedRedis', () => {
  it('accepts Redis 7 and later', () => {
    expect(unsupportedRedis('# Server\r\nredis_version:7.0.15\r\n')).toBeUndefined();
    expect(unsupportedRedis('redis_version:8.2.1\r\n')).toBeUndefined();
  });

  it('refuses Redis 6.2 in one line that says what to do', () => {
    expect(unsupportedRedis('# Server\r\nredis_version:6.2.14\r\nredis_mode:standalone\r\n')).toBe(
      'Sluice needs Redis 7.0 or later (its Lua runs as a function library), and the server at hand is Redis 6.2.14: upgrade it',
    );
  });
});

describe('loadOptionalPeer', () => {
  it('fails in one line naming the feature and the install command when the peer is missing', async () => {
    const missing: string = 'sluice-no-such-package';
    const loading = loadOptionalPeer(missing, 'SluiceModule metrics', () => import(missing));
    const error = (await loading.catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(SluiceStartError);
    expect(error.message).toBe(
      'SluiceModule metrics needs the sluice-no-such-package package: npm install sluice-no-such-package',
    );
    expect(error.stack).toBe(`SluiceStartError: ${error.message}`);
  });

  it('passes through an error the peer itself throws while loading', async () => {
    const broken = new Error('the peer failed to initialise');
    await expect(loadOptionalPeer('ioredis', 'x', () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
  });

  it('returns the loaded module of an installed, supported peer', async () => {
    const ioredis = await loadOptionalPeer('ioredis', 'x', () => import('ioredis'));
    expect(typeof ioredis.Redis).toBe('function');
  });
});
