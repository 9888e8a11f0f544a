import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';
import {
  hoursKeptMs,
  hoursToRead,
  lastFoldable,
  longestWindowMs,
  LOWER_NOTICE_MS,
  noticedFrom,
  windowAt,
  windowBound,
  type ProfileWindows,
} from './traffic-profile.js';
import {
  DEFAULT_PROFILE_LIMITS,
  levelKey,
  type ProfileCount,
  type ProfileHour,
  type ProfileLimits,
  type ProfileRecord,
  type ProfileSampling,
  type TrafficProfileStore,
} from './traffic-profile.store.js';

const SOURCE = readFileSync(new URL('./traffic-profile.lua', import.meta.url), 'utf8');
const SHA = createHash('sha1').update(SOURCE).digest('hex');
/** Counts per call: a flush of a busy policy is cut into calls that hold Redis briefly. */
const COUNTS_PER_CALL = 1_000;

/**
 * The profile in Redis: traffic-profile.lua adds an instance's counts and folds closed windows,
 * one call per policy and window length, under the hash tag `{prof:<policy>}` so a Cluster keeps
 * a policy's profile on one master.
 */
export class RedisTrafficProfile implements TrafficProfileStore {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    readonly limits: ProfileLimits = DEFAULT_PROFILE_LIMITS,
    /** Where reads go: a connection with a longer timeout (SluiceConnection.readRedis). */
    private readonly reader: () => Redis | Cluster = () => client,
  ) {}

  async record(
    counts: readonly ProfileCount[],
    nowMs: number,
  ): Promise<Map<string, ProfileSampling>> {
    const groups = new Map<string, { policy: string; windows: ProfileWindows; args: string[] }>();
    for (const count of counts) {
      const name = levelKey(count.policy, count.windows);
      let group = groups.get(name);
      if (group === undefined) {
        group = { policy: count.policy, windows: count.windows, args: [] };
        groups.set(name, group);
      }
      group.args.push(String(count.window), count.field, String(count.count));
    }
    const levels = new Map<string, ProfileSampling>();
    await Promise.all(
      [...groups].map(async ([name, { policy, windows, args }]) => {
        for (let from = 0; from < args.length; from += 3 * COUNTS_PER_CALL) {
          const part = args.slice(from, from + 3 * COUNTS_PER_CALL);
          levels.set(name, await this.run(this.client, policy, windows, nowMs, part));
        }
      }),
    );
    return levels;
  }

  async read(
    policy: string,
    windows: ProfileWindows,
    fromHour: number,
    toHour: number,
    nowMs: number,
  ): Promise<ProfileRecord> {
    const reader = this.reader();
    const { level } = await this.run(reader, policy, windows, nowMs, []);
    const base = this.base(policy);
    const pipeline = reader.pipeline();
    pipeline.hgetall(`${base}:m`);
    const read = hoursToRead(windows, fromHour, toHour);
    for (const hour of read) {
      pipeline.hgetall(`${base}:h:${windows.key}:${hour}`);
      pipeline.call('ZRANGE', `${base}:t:${windows.key}:${hour}`, '0', '-1', 'REV', 'WITHSCORES');
    }
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
    const meta = replies[0]?.[1] as Record<string, string>;
    const hours: ProfileHour[] = [];
    for (let index = 0; index < read.length; index++) {
      const hour = read[index] as number;
      const at = 1 + 2 * index;
      const flat = replies[at]?.[1] as Record<string, string>;
      const topFlat = replies[at + 1]?.[1] as string[];
      if (Object.keys(flat).length === 0) continue;
      const fields = new Map<string, number>();
      for (const [field, value] of Object.entries(flat)) fields.set(field, Number(value));
      const top: ProfileHour['top'] = [];
      for (let index = 0; index + 1 < topFlat.length; index += 2) {
        top.push({ member: topFlat[index] as string, count: Number(topFlat[index + 1]) });
      }
      hours.push({ hour, fields, top });
    }
    return { level, late: Number(meta[`late:${windows.key}`] ?? 0), hours };
  }

  private async run(
    client: Redis | Cluster,
    policy: string,
    windows: ProfileWindows,
    nowMs: number,
    counts: string[],
  ): Promise<ProfileSampling> {
    const base = this.base(policy);
    const args = [
      String(nowMs),
      windows.key,
      String(windowBound(this.limits.sampleBound, longestWindowMs(windows))),
      String(hoursKeptMs(windows, this.limits.retentionMs)),
      String(windowAt(windows, nowMs)),
      String(noticedFrom(windows, nowMs, LOWER_NOTICE_MS)),
      String(lastFoldable(windows, nowMs)),
      ...counts,
    ];
    let reply: unknown;
    try {
      reply = await client.evalsha(SHA, 1, base, ...args);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      reply = await client.eval(SOURCE, 1, base, ...args);
    }
    const [level, nextLevel, nextFrom] = (reply as unknown[]).map(Number);
    return { level: level ?? 0, nextLevel: nextLevel ?? -1, nextFrom: nextFrom ?? -1 };
  }

  private base(policy: string): string {
    return `${this.prefix}:{prof:${policy}}`;
  }
}
