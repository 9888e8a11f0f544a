import { Inject, Injectable } from '@nestjs/common';
import {
  epochMs,
  PolicyBus,
  SLUICE_CLOCK,
  STALE_AFTER_MS,
  type Clock,
} from '@sluice/nest/internals';
import type { InstanceList } from '../common/admin-api.types.js';
import { RedisUnavailableException } from '../common/redis-unavailable.exception.js';

/** Every instance's heartbeat beside the version Redis holds; needs Redis only. */
@Injectable()
export class InstancesService {
  constructor(
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async list(now = epochMs(this.clock)): Promise<InstanceList> {
    let heartbeats;
    let version;
    try {
      [heartbeats, version] = await Promise.all([this.bus.instances(), this.bus.storedVersion()]);
    } catch (error) {
      throw new RedisUnavailableException('instance heartbeats cannot be read', error);
    }
    const published = version ?? 0;
    return {
      version,
      instances: heartbeats
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((heartbeat) => ({
          ...heartbeat,
          stale: now - Date.parse(heartbeat.lastSeen) > STALE_AFTER_MS,
          // A policy the instance could not load keeps an older definition there (lastError).
          upToDate: heartbeat.policyVersion === published && heartbeat.lastError === null,
        })),
    };
  }
}
