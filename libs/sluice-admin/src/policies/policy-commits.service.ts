import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { VersionedWrites } from '../database/versioned-writes.service.js';
import { SnapshotPublisher } from './snapshot.publisher.js';

export interface CommitOptions<T> {
  /** The policy the change is about, named in the notice; null for the whole set. */
  changed: string | null;
  /**
   * Whether the committed set is published now. Default: always. The start's seeding publishes
   * once after all of its writes (AdminStartup); a sweep that found nothing publishes nothing.
   */
  publish?: (result: T) => boolean;
}

/**
 * The one path of every versioned change (a policy, a candidate, the enforcement switch, the
 * start's seeding): one transaction that bumps the global version (VersionedWrites), then the
 * committed set published to every instance (SnapshotPublisher, which retries on its own when
 * Redis does not take it). docs/architecture.md, "How a change reaches every instance".
 */
@Injectable()
export class PolicyCommits {
  constructor(
    @Inject(VersionedWrites) private readonly writes: VersionedWrites,
    @Inject(SnapshotPublisher) private readonly publisher: SnapshotPublisher,
  ) {}

  async commit<T>(
    actor: Actor,
    options: CommitOptions<T>,
    work: (manager: EntityManager, version: number) => Promise<T>,
  ): Promise<T> {
    const { result, snapshot } = await this.writes.write(actor, work);
    if (options.publish?.(result) ?? true) await this.publisher.publish(snapshot, options.changed);
    return result;
  }
}
