import type { Tracker } from '@sluice/nest';

/** Longer names are cut: the guard runs before the body is validated. */
const MAX_USERNAME = 64;

/**
 * The `login` tracker: failed logins are counted per client address and (lower-cased) username,
 * so a block on one pair leaves the user free to log in from elsewhere, and others behind the
 * same address free to log in as themselves. Guesses spread over many usernames or addresses
 * would need a policy per address or per user beside it. A body without a username is counted
 * by its address alone.
 */
export const loginTracker: Tracker = (request: { body?: { username?: unknown } }, _, client) => {
  const username = request.body?.username;
  if (typeof username !== 'string' || username === '') return undefined;
  return `${client.address()}/${username.slice(0, MAX_USERNAME).toLowerCase()}`;
};
