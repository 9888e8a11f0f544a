import { RequestMethod } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { adminMount, type GlobalPrefixSource } from './admin.mount.js';

const config = (prefix: string, exclude: Array<{ path: RegExp; method?: number }> = []) =>
  ({
    getGlobalPrefix: () => prefix,
    getGlobalPrefixOptions: () => ({
      exclude: exclude.map(({ path, method }) => ({
        requestMethod: method ?? RequestMethod.ALL,
        pathRegex: path,
      })),
    }),
  }) satisfies GlobalPrefixSource;

describe('adminMount', () => {
  it('is /<path> without a global prefix', () => {
    expect(adminMount('sluice', undefined)).toBe('/sluice');
    expect(adminMount('ops/sluice', config(''))).toBe('/ops/sluice');
  });

  it("follows the app's prefix, with or without slashes around it", () => {
    expect(adminMount('sluice', config('api'))).toBe('/api/sluice');
    expect(adminMount('ops/sluice', config('/api/v2/'))).toBe('/api/v2/ops/sluice');
  });

  it("ignores exclusions of the app's own routes", () => {
    expect(adminMount('sluice', config('api', [{ path: /^\/$/ }]))).toBe('/api/sluice');
  });

  it('stays outside the prefix when the exclusions cover the admin API', () => {
    const wildcard = /^\/sluice(?:\/.*)?$/i;
    expect(adminMount('sluice', config('api', [{ path: wildcard }]))).toBe('/sluice');
    const getOnly = { path: wildcard, method: RequestMethod.GET };
    expect(adminMount('sluice', config('api', [getOnly]))).toBe('/sluice');
    const postOnly = { path: wildcard, method: RequestMethod.POST };
    expect(adminMount('sluice', config('api', [postOnly]))).toBe('/api/sluice');
  });
});
