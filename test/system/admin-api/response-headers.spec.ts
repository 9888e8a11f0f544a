// What a browser or a proxy may do with the admin API's answers: keep none, sniff none. The
// headers come on refusals by the auth guard as on answers, on both adapters.
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { TOKENS } from './app.module.js';
import { useAdminApp } from './admin.fixture.js';

afterAll(closeAll);

describe.each(ADAPTERS)('admin API response headers on %s', (adapter) => {
  const admin = useAdminApp(adapter);

  it.each([
    ['an answer', 'GET', '/policies', `Bearer ${TOKENS.viewer}`, 200],
    ['a refusal without credentials', 'GET', '/policies', undefined, 401],
    ['a session check without one', 'GET', '/session', undefined, 401],
    ['a refusal for the role', 'PUT', '/enforcement', `Bearer ${TOKENS.viewer}`, 403],
  ] as const)('%s is never stored and never sniffed', async (_, method, path, auth, status) => {
    const headers: Record<string, string> = auth === undefined ? {} : { authorization: auth };
    const response = await fetch(`${admin.app.url}/sluice/api${path}`, { method, headers });
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
