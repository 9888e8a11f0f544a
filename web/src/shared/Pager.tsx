import { Button, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';

/** Cursor paging: the cursors of the pages before this one, so "Previous page" can go back. */
export function useCursorPages(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: string[] }>({
    key: resetKey,
    cursors: [],
  });
  const cursors = state.key === resetKey ? state.cursors : [];
  return {
    cursor: cursors.at(-1),
    page: cursors.length + 1,
    next: (cursor: string) => setState({ key: resetKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: resetKey, cursors: cursors.slice(0, -1) }),
  };
}

interface PagerProps {
  page: number;
  nextCursor: string | null;
  onNext: (cursor: string) => void;
  onPrevious: () => void;
}

export function Pager({ page, nextCursor, onNext, onPrevious }: PagerProps) {
  if (page === 1 && nextCursor === null) return null;
  return (
    <Flex gap="3" align="center">
      {page > 1 && (
        <Button variant="soft" onClick={onPrevious}>
          Previous page
        </Button>
      )}
      <Text size="2">Page {page}</Text>
      {nextCursor !== null && (
        <Button variant="soft" onClick={() => onNext(nextCursor)}>
          Next page
        </Button>
      )}
    </Flex>
  );
}
