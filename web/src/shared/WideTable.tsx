import { Text } from '@radix-ui/themes';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** What a table wider than the screen says above itself. */
export const SCROLL_HINT = 'More columns to the right: scroll the table sideways.';

/**
 * A table that says, above itself, when it is wider than the room it has (a phone's width): its
 * columns go on to the right, out of sight. Measured, so a table that fits says nothing.
 */
export function WideTable({ children }: { children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const element = box.current;
    const table = element?.querySelector('table');
    if (element == null || table == null || typeof ResizeObserver === 'undefined') return;
    const check = () => setOverflows(table.scrollWidth > element.clientWidth + 1);
    const observer = new ResizeObserver(check);
    observer.observe(element);
    observer.observe(table);
    check();
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={box} className="wide-table">
      {overflows && (
        <Text as="p" size="1" color="gray" mb="1">
          {SCROLL_HINT}
        </Text>
      )}
      {children}
    </div>
  );
}
