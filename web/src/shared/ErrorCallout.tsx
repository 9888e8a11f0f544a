import { Callout } from '@radix-ui/themes';
import type { ReactNode } from 'react';

interface ErrorCalloutProps {
  /** What failed: its message is shown unless `children` say it in other words. */
  error?: Error | null;
  children?: ReactNode;
}

/** The panel's one way of saying that something failed: a red alert that screen readers announce. */
export function ErrorCallout({ error, children }: ErrorCalloutProps) {
  const text = children ?? error?.message;
  if (text === undefined || text === null || text === '') return null;
  return (
    <Callout.Root color="red" role="alert">
      <Callout.Text>{text}</Callout.Text>
    </Callout.Root>
  );
}
