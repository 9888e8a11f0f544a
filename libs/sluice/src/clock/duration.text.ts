/**
 * A duration as Sluice writes it everywhere a person reads one (the panel, a 429's message):
 * "90 ms", "12 s", "5 min", "2 h 30 min", "3 d 4 h" — the two largest units, rounded to the
 * second from a second on.
 */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/**
 * How long to wait, as a refusal says it: never shorter than the wait (rounded up to the second,
 * then to the units shown), so a client that waits what it read is not refused again.
 */
export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 3600) return durationText(seconds * 1000);
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 24 * 60) return durationText(minutes * 60_000);
  return durationText(Math.ceil(minutes / 60) * 3_600_000);
}
