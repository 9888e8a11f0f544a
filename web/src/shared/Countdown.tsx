import { useEffect, useState } from 'react';
import { formatDuration } from './format';

/** Time left until `until`, ticking every second on the reader's clock; "ended" once it passes. */
export function Countdown({ until }: { until: string }) {
  const end = new Date(until).getTime();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (now >= end) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [end, now]);
  const left = end - now;
  return (
    <time dateTime={until}>
      {left <= 0 ? 'ended' : formatDuration(Math.ceil(left / 1000) * 1000)}
    </time>
  );
}
