/**
 * Whether a candidate sampled at `percent` is decided for `identifier`. The choice is a pure
 * function of the identifier, so every instance decides the same identifiers and each sampled
 * one's candidate state is complete (docs/architecture.md, "Shadow candidates").
 */
export function inCandidateSample(identifier: string, percent: number): boolean {
  if (percent >= 100) return true;
  return sampleBucket(identifier) < percent;
}

/** 0–99: the FNV-1a hash of the identifier's UTF-16 code units, modulo 100. */
export function sampleBucket(identifier: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < identifier.length; index++) {
    hash ^= identifier.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % 100;
}
