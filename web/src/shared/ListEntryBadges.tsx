import type { ListEntryView } from '@sluice/admin/api';
import { Badge, Flex } from '@radix-ui/themes';

/** Which list an entry is on, and whether it only counts (shadow) or has expired. */
export function ListEntryBadges({ entry }: { entry: ListEntryView }) {
  return (
    <Flex gap="1" wrap="wrap">
      <Badge color={entry.list === 'deny' ? 'red' : 'green'}>{entry.list}</Badge>
      {entry.mode === 'shadow' && <Badge color="gray">shadow</Badge>}
      {entry.expired && <Badge color="gray">expired</Badge>}
    </Flex>
  );
}
