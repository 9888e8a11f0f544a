/**
 * A store clock (µs) that starts at the beginning of a minute and then runs with the wall clock.
 * Fixed windows and sliding-window segments start on round times, so on Redis' own time a test
 * that crosses a minute boundary sees a minute-long window empty again and admits what it meant
 * to see refused. With this clock no window of a minute-long policy rolls over during a test.
 */
export function minuteClock(): () => number {
  const startedAt = Date.now();
  const minute = Math.ceil(startedAt / 60_000) * 60_000;
  return () => (minute + Date.now() - startedAt) * 1000;
}
