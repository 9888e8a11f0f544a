import { assertPeerVersions } from './peer.versions.js';
import { SluiceStartError } from './start.error.js';

/**
 * Loads an optional peer the first time a feature needs it. Missing, it fails with one line
 * naming the feature and the install command; installed in a version Sluice does not support,
 * with one line naming the supported ones.
 */
export async function loadOptionalPeer<T>(
  name: string,
  neededFor: string,
  load: () => Promise<T>,
): Promise<T> {
  let loaded: T;
  try {
    loaded = await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new SluiceStartError(`${neededFor} needs the ${name} package: npm install ${name}`);
  }
  assertPeerVersions([name]);
  return loaded;
}

/**
 * Loads a peer that only adds to a feature when present (the event emitter): undefined when it is
 * not installed, the same version check as loadOptionalPeer when it is.
 */
export async function loadPeerIfInstalled<T>(
  name: string,
  load: () => Promise<T>,
): Promise<T | undefined> {
  let loaded: T;
  try {
    loaded = await load();
  } catch (error) {
    if (isMissing(error, name)) return undefined;
    throw error;
  }
  assertPeerVersions([name]);
  return loaded;
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    (message ?? '').includes(name)
  );
}
