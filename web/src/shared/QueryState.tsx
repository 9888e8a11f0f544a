import { Flex, Spinner, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { ErrorCallout } from './ErrorCallout';

/** A query's loading and failure states, or its content once it has data. */
export function QueryState<T>({
  query,
  children,
}: {
  query: { data: T | undefined; error: Error | null; isPending: boolean };
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error !== null) return <ErrorCallout error={query.error} />;
  return (
    <Flex align="center" gap="2" py="4">
      <Spinner /> <Text>Loading…</Text>
    </Flex>
  );
}
