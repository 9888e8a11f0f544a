import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** What each instance reports about itself (DESIGN §6). */
export interface InstanceHeartbeat {
  id: string;
  host: string;
  pid: number;
  libVersion: string;
  /** The policy snapshot version it enforces; 0 while it has only its code defaults. */
  policyVersion: number;
  /** Why its last sync failed, or null. */
  lastError: string | null;
  startedAt: string;
  lastSeen: string;
}

const { version: LIB_VERSION } = createRequire(import.meta.url)('../../package.json') as {
  version: string;
};

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
