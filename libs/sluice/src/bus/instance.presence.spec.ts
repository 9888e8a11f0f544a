import { systemClock } from '../clock/clock.js';
import { describe, expect, it } from 'vitest';
import { heartbeat } from './instance.heartbeat.js';
import { FORGET_AFTER_MS, InstancePresence, STALE_AFTER_MS } from './instance.presence.js';
import { LocalPolicyChannel } from './local.channel.js';

describe('InstancePresence', () => {
  it('forgets an instance that died without leaving, and stops counting it as live', async () => {
    const channel = new LocalPolicyChannel();
    let now = Date.parse('2026-11-26T12:00:00Z');
    const survivor = new InstancePresence(channel, () => now * 1000);
    const crashed = new InstancePresence(channel, () => now * 1000);
    await crashed.beat(3, null);
    await survivor.beat(3, null);
    expect((await survivor.instances()).map((each) => each.id).sort()).toEqual(
      [crashed.instanceId, survivor.instanceId].sort(),
    );
    expect(survivor.liveInstances).toBe(2);

    now += STALE_AFTER_MS + 1_000; // only the survivor beats on
    await survivor.beat(3, null);
    expect(survivor.liveInstances).toBe(1);
    expect(await survivor.instances()).toHaveLength(2); // listed as stale for a while

    now += FORGET_AFTER_MS;
    expect((await survivor.instances()).map((each) => each.id)).toEqual([survivor.instanceId]);
    await survivor.beat(3, null);
    // The entry itself is deleted, not only hidden.
    expect((await channel.heartbeats()).map((each) => each.id)).toEqual([survivor.instanceId]);
  });

  it('drops an entry whose date cannot be read', async () => {
    const channel = new LocalPolicyChannel();
    const presence = new InstancePresence(channel, systemClock);
    await channel.beat({ ...heartbeat('odd', new Date(), 1, null, new Date()), lastSeen: 'x' });
    await presence.beat(1, null);
    expect((await channel.heartbeats()).map((each) => each.id)).toEqual([presence.instanceId]);
  });
});
