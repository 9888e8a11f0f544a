/** Slots of the table: 512 KiB of times and 256 KiB of whose they are, made at the first sighting. */
export const SIGHTING_SLOTS = 1 << 16;

/**
 * When this instance last saw each identifier, as cheaply as it can be asked: an identifier seen
 * at most once an interval is decided by Redis without a view (docs/algorithms.md, "Eventual
 * consistency"), and recording that it came must cost far less than the view would. A fixed
 * table of times indexed by a hash of the key: no map to grow, rehash or collect, two reads and
 * two writes. Each slot also keeps the full hash of the key it last saw, so an identifier never
 * takes the time of another that shares its slot: at thousands of identifiers an interval, one in
 * a few dozen would share a slot with a recent one, look hot, and cost a view and a sync instead
 * of its one exact call. Two that share a slot take it from each other; at most that makes a
 * returning identifier look new.
 */
export class Sightings {
  private times: Float64Array | undefined;
  private owners: Int32Array | undefined;

  /**
   * Records that the key whose hash is `hash` (hashOf) is seen at `now` (µs); answers when it was
   * seen before, -Infinity when its slot last held another key or none.
   */
  see(hash: number, now: number): number {
    const times = (this.times ??= new Float64Array(SIGHTING_SLOTS).fill(-Infinity));
    const owners = (this.owners ??= new Int32Array(SIGHTING_SLOTS));
    const slot = slotOfHash(hash);
    const before = owners[slot] === hash ? (times[slot] as number) : -Infinity;
    times[slot] = now;
    owners[slot] = hash;
    return before;
  }
}

/** A key's hash: FNV-1a over its UTF-16 code units, a 32-bit signed integer. */
export function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** The slot of a key whose hash is `hash` (hashOf): the hash cut to the table's size. */
export function slotOfHash(hash: number): number {
  return hash & (SIGHTING_SLOTS - 1);
}

/** A key's slot. */
export function slotOf(key: string): number {
  return slotOfHash(hashOf(key));
}
