import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What each instance reports about itself (docs/operations.md, seeing that it did). */
export interface InstanceHeartbeat {
  /** Random, chosen at start: one per process. */
  id: string;
  /** The machine's host name. */
  host: string;
  /** The process id. */
  pid: number;
  /** The `@sluice/nest` version it runs. */
  libVersion: string;
  /** The policy snapshot version it enforces; 0 while it has only its code defaults. */
  policyVersion: number;
  /** Why its last sync failed, or null. */
  lastError: string | null;
  /** When it started, ISO 8601. */
  startedAt: string;
  /** When it sent this heartbeat, ISO 8601. */
  lastSeen: string;
}

const LIB_VERSION = ownVersion(dirname(fileURLToPath(import.meta.url)));

/**
 * The version in `@sluice/nest`'s package.json, found by walking up from this module: it sits at
 * different depths in the sources and in dist/esm and dist/cjs, and dist's own package.json files
 * (which only say the module system) have no name.
 */
function ownVersion(directory: string): string {
  for (let at = directory; ; at = dirname(at)) {
    const manifest = join(at, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (name === '@sluice/nest' && typeof version === 'string') return version;
    }
    if (dirname(at) === at) return 'unknown';
  }
}

export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function heartbeat(
  id: string,
  startedAt: Date,
  policyVersion: number,
  lastError: string | null,
  now: Date,
): InstanceHeartbeat {
  return {
    id,
    host: hostname(),
    pid: process.pid,
    libVersion: LIB_VERSION,
    policyVersion,
    lastError,
    startedAt: startedAt.toISOString(),
    lastSeen: now.toISOString(),
  };
}

/** Tolerates what another version of the library may have written. */
export function parseHeartbeat(text: string): InstanceHeartbeat | null {
  try {
    const value = JSON.parse(text) as Partial<InstanceHeartbeat>;
    if (typeof value.id !== 'string' || typeof value.lastSeen !== 'string') return null;
    return value as InstanceHeartbeat;
  } catch {
    return null;
  }
}
