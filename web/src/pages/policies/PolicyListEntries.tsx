import type { ListEntryView } from '@sluice/admin/api';
import { Card, Flex, Heading, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { formatTime } from '../../shared/format';
import { matchedText, matchText } from '../../shared/list-entry';
import { useLists } from '../../shared/lists.hooks';
import { ListEntryBadges } from '../../shared/ListEntryBadges';
import { QueryState } from '../../shared/QueryState';
import { WideTable } from '../../shared/WideTable';

/** The entries that decide this policy before its rate: those naming it, then global ones. */
function entriesOf(entries: readonly ListEntryView[], policy: string): ListEntryView[] {
  const naming = entries.filter((entry) => entry.policies?.includes(policy) === true);
  const global = entries.filter((entry) => entry.policies === null);
  return [...naming, ...global];
}

/** The allow and deny list entries that apply to the policy, with what they matched. */
export function PolicyListEntries({ name }: { name: string }) {
  const lists = useLists();
  return (
    <Card>
      <Flex direction="column" gap="2">
        <Flex justify="between" align="center" wrap="wrap" gap="2">
          <Heading as="h3" size="4">
            Allow and deny lists
          </Heading>
          <ThemeLink asChild size="2">
            <Link to="/lists">The Lists screen</Link>
          </ThemeLink>
        </Flex>
        <QueryState query={lists}>
          {({ entries }) => {
            const applying = entriesOf(entries, name);
            if (applying.length === 0) {
              return (
                <Text size="2" color="gray">
                  No list entry applies to {name}: its rate decides every request.
                </Text>
              );
            }
            return (
              <WideTable>
                <Table.Root
                  variant="surface"
                  size="1"
                  aria-label={`List entries applying to ${name}`}
                >
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>Matches</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>List</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Applies to</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Matched</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Expires</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {applying.map((entry) => (
                      <Table.Row key={entry.id}>
                        <Table.RowHeaderCell>
                          <code>{entry.value}</code>
                          <Text as="div" size="1" color="gray">
                            {matchText(entry)} · {entry.reason}
                          </Text>
                        </Table.RowHeaderCell>
                        <Table.Cell>
                          <ListEntryBadges entry={entry} />
                        </Table.Cell>
                        <Table.Cell>
                          {entry.policies === null ? 'every policy' : entry.policies.join(', ')}
                        </Table.Cell>
                        <Table.Cell>{matchedText(entry)}</Table.Cell>
                        <Table.Cell>
                          {entry.expiresAt === null ? 'never' : formatTime(entry.expiresAt)}
                        </Table.Cell>
                      </Table.Row>
                    ))}
                  </Table.Body>
                </Table.Root>
              </WideTable>
            );
          }}
        </QueryState>
      </Flex>
    </Card>
  );
}
