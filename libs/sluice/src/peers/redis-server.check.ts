import type { Cluster, Redis } from 'ioredis';
import { SluiceStartError } from './start.error.js';

/** Lua runs as a Redis function library (FUNCTION LOAD, FCALL): Redis 7.0 or later. */
const MINIMUM_MAJOR = 7;

/** Why the server that wrote this `INFO server` reply cannot run Sluice, or undefined. */
export function unsupportedRedis(info: string): string | undefined {
  const version = /^redis_version:(\S+)/m.exec(info)?.[1];
  const major = Number(version?.split('.')[0]);
  if (version === undefined || major >= MINIMUM_MAJOR) return undefined;
  return `Sluice needs Redis ${MINIMUM_MAJOR}.0 or later (its Lua runs as a function library), and the server at hand is Redis ${version}: upgrade it`;
}

/** Fails the start with one line when a connected server is older than Redis 7. */
export async function assertRedisServer(client: Redis | Cluster): Promise<void> {
  if (client.status !== 'ready') return;
  const info = await client.info('server').catch(() => '');
  const problem = unsupportedRedis(info);
  if (problem !== undefined) throw new SluiceStartError(problem);
}
