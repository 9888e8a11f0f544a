import { describe, expect, it } from 'vitest';
import { resolveAuthSettings } from './auth-settings.resolver.js';

const CREDENTIALS = 'alice:admin:correct-horse-battery';

describe('resolveAuthSettings', () => {
  it('defaults production from NODE_ENV, sessions to 8 hours, Secure cookies to production', () => {
    expect(resolveAuthSettings({ credentials: CREDENTIALS }, 'production')).toMatchObject({
      production: true,
      sessionTtlMs: 8 * 3_600_000,
      secureCookies: true,
    });
    expect(resolveAuthSettings(undefined, 'development')).toEqual({
      credentials: [],
      production: false,
      sessionTtlMs: 8 * 3_600_000,
      secureCookies: false,
    });
  });

  it('refuses production without credentials, saying how to set SLUICE_ADMIN_TOKENS', () => {
    expect(() => resolveAuthSettings({ credentials: '' }, 'production')).toThrow(
      /options\.auth\.credentials: none configured.*SLUICE_ADMIN_TOKENS="alice:admin:/,
    );
    expect(() => resolveAuthSettings({ production: true }, 'development')).toThrow(
      /refuses to start/,
    );
  });

  it('lets an explicit production: false start without credentials', () => {
    expect(resolveAuthSettings({ production: false }, 'production').credentials).toEqual([]);
  });

  it('names every bad option at once', () => {
    expect(() =>
      resolveAuthSettings({
        credentials: 'alice:boss:correct-horse-battery',
        sessionTtlMs: 10,
        production: 'yes' as unknown as boolean,
      }),
    ).toThrow(
      'SluiceAdminModule options.auth.production: must be a boolean; ' +
        'SluiceAdminModule options.auth.sessionTtlMs: must be a whole number of milliseconds from 1000 to 2592000000 (30 days); ' +
        'SluiceAdminModule options.auth.credentials[0].role: must be one of viewer, operator, admin',
    );
  });
});
