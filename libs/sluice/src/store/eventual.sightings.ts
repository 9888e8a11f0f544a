/** Slots of the table: 512 KiB of times, allocated with the first sighting. */
export const SIGHTING_SLOTS = 1 << 16;

/**
 * When this instance last saw each identifier, as cheaply as it can be asked: an identifier seen
 * at most once an interval is decided by Redis without a view (docs/algorithms.md, "Eventual
 * consistency"), and recording that it came must cost far less than the view would. A fixed
 * table of times indexed by a hash of the key: no map to grow, rehash or collect, one read and
 * one write. Two identifiers that share a slot see each other's time; at most that makes a rarely
 * seen identifier look hot, so it is given a view, as every identifier was before.
 */
export class Sightings {
  private slots: Float64Array | undefined;

  /**
   * Records that the key of `slot` (slotOf) is seen at `now` (µs); answers when it, or one in
   * its slot, was last seen.
   */
  see(slot: number, now: number): number {
    const slots = (this.slots ??= new Float64Array(SIGHTING_SLOTS).fill(-Infinity));
    const before = slots[slot] as number;
    slots[slot] = now;
    return before;
  }
}

/** A key's slot: FNV-1a over its UTF-16 code units, cut to the table's size. */
export function slotOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & (SIGHTING_SLOTS - 1);
}
