import { useEffect, useState } from 'react';

/**
 * The time now, in epoch ms, moving on every `everyMs`: what a screen compares times with (is an
 * override expired?) without reading the clock while it renders.
 */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
