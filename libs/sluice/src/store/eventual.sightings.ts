/**
 * When this instance last saw each identifier, for as long as that can matter: one sync interval.
 * An identifier seen less often is decided by Redis without a view (docs/algorithms.md, "Eventual
 * consistency"), and recording that it came costs one map write instead of a view kept, looked up
 * and taught Redis's answer. Two generations, each at most `max` entries: a sighting lives one to
 * two `lifeUs`, and past `max` the older generation goes at once.
 */
export class Sightings {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private turnsAt = -Infinity;
  /** µs; the longest interval asked about so far: a sighting must outlive it. */
  private lifeUs = 0;

  constructor(private readonly max: number) {}

  /**
   * Records that `key` is seen at `now` (µs) and answers when it was seen before, if within the
   * last `lifeUs`-ish; -Infinity if not seen, or seen too long ago to be kept.
   */
  see(key: string, now: number, intervalUs: number): number {
    if (intervalUs > this.lifeUs) this.lifeUs = intervalUs;
    if (now >= this.turnsAt || this.current.size >= this.max) {
      this.previous = this.current;
      this.current = new Map();
      this.turnsAt = now + this.lifeUs;
    }
    const before = this.current.get(key) ?? this.previous.get(key) ?? -Infinity;
    this.current.set(key, now);
    return before;
  }

  /** Forgets `key`: its next request is a first sighting. */
  forget(key: string): void {
    this.current.delete(key);
    this.previous.delete(key);
  }
}
