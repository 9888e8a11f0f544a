/** Tokens for the test credentials; long enough to pass validation, unique per role. */
export const TOKENS = {
  alice: 'alice-admin-token-7c1f',
  olga: 'olga-operator-token-52ab',
  victor: 'victor-viewer-token-9e04',
} as const;

export const CREDENTIALS = `alice:admin:${TOKENS.alice},olga:operator:${TOKENS.olga},victor:viewer:${TOKENS.victor}`;

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The panel's way to sign in: JSON body, which also passes the CSRF check. */
export function signIn(
  url: string,
  name: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/sluice/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ name, password }),
  });
}

/** "sluice_session=<secret>" from a sign-in response, to send back as a Cookie header. */
export function sessionCookieOf(response: Response): string {
  const setCookie = response.headers.get('set-cookie') ?? '';
  const pair = setCookie.split(';')[0] ?? '';
  if (!pair.startsWith('sluice_session=')) throw new Error(`no session cookie in "${setCookie}"`);
  return pair;
}
