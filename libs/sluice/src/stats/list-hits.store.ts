import type { Cluster, Redis } from 'ioredis';
import type { ListHits } from '../lists/access-lists.js';

/** How long an entry's counts are kept after its last match: a month. */
const HITS_RETENTION_MS = 30 * 24 * 3_600_000;

/** Where every instance adds up what its list entries matched, for the panel to read. */
export interface ListHitStore {
  /** Adds this instance's matches to the totals. */
  add(hits: ReadonlyMap<string, ListHits>): Promise<void>;
  /** The totals by entry id. */
  read(): Promise<Map<string, ListHits>>;
  /** Drops a removed entry's totals. */
  forget(id: string): Promise<void>;
}

/**
 * One hash, `<prefix>:lists:hits`, fields `<entry id>:enforced` and `<entry id>:shadow`: one key,
 * so a Cluster serves it from one master. Its TTL starts again with each addition.
 */
export class RedisListHits implements ListHitStore {
  private readonly key: string;

  constructor(
    private readonly client: Redis | Cluster,
    prefix: string,
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {
    this.key = `${prefix}:lists:hits`;
  }

  async add(hits: ReadonlyMap<string, ListHits>): Promise<void> {
    const pipeline = this.client.pipeline();
    for (const [id, counts] of hits) {
      if (counts.enforced > 0) pipeline.hincrby(this.key, `${id}:enforced`, counts.enforced);
      if (counts.shadow > 0) pipeline.hincrby(this.key, `${id}:shadow`, counts.shadow);
    }
    pipeline.pexpire(this.key, HITS_RETENTION_MS);
    const failed = ((await pipeline.exec()) ?? []).find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }

  async read(): Promise<Map<string, ListHits>> {
    const fields = await this.reader().hgetall(this.key);
    const totals = new Map<string, ListHits>();
    for (const [field, value] of Object.entries(fields)) {
      const colon = field.lastIndexOf(':');
      const id = field.slice(0, colon);
      const which = field.slice(colon + 1);
      if (which !== 'enforced' && which !== 'shadow') continue;
      const counts = totals.get(id) ?? { enforced: 0, shadow: 0 };
      counts[which] = Number(value) || 0;
      totals.set(id, counts);
    }
    return totals;
  }

  async forget(id: string): Promise<void> {
    await this.client.hdel(this.key, `${id}:enforced`, `${id}:shadow`);
  }
}

/** This process's totals, for the in-memory store. */
export class LocalListHits implements ListHitStore {
  private readonly totals = new Map<string, ListHits>();

  add(hits: ReadonlyMap<string, ListHits>): Promise<void> {
    for (const [id, counts] of hits) {
      const total = this.totals.get(id) ?? { enforced: 0, shadow: 0 };
      total.enforced += counts.enforced;
      total.shadow += counts.shadow;
      this.totals.set(id, total);
    }
    return Promise.resolve();
  }

  read(): Promise<Map<string, ListHits>> {
    return Promise.resolve(new Map([...this.totals].map(([id, counts]) => [id, { ...counts }])));
  }

  forget(id: string): Promise<void> {
    this.totals.delete(id);
    return Promise.resolve();
  }
}
