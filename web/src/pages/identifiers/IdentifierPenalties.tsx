import { Badge, Flex, Heading, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { formatDuration, formatTime } from '../../shared/format';
import { QueryState } from '../../shared/QueryState';
import { useIdentifierPenalties } from './identifiers.hooks';
import { WideTable } from '../../shared/WideTable';

/** Its latest penalties, newest first, with a link to the whole history. */
export function IdentifierPenalties({ identifier }: { identifier: string }) {
  const penalties = useIdentifierPenalties(identifier);
  return (
    <Flex direction="column" gap="2">
      <Heading as="h4" size="3">
        Penalty history
      </Heading>
      <QueryState query={penalties}>
        {(page) =>
          page.penalties.length === 0 ? (
            <Text color="gray">Never blocked.</Text>
          ) : (
            <>
              <WideTable>
                <Table.Root variant="surface" size="1">
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>Started</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Offence</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Duration</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {page.penalties.map((penalty) => (
                      <Table.Row key={penalty.id}>
                        <Table.Cell>{formatTime(penalty.startedAt)}</Table.Cell>
                        <Table.RowHeaderCell>{penalty.policy}</Table.RowHeaderCell>
                        <Table.Cell>
                          {penalty.source === 'manual' ? 'by hand' : penalty.offence}
                        </Table.Cell>
                        <Table.Cell>{formatDuration(penalty.durationMs)}</Table.Cell>
                        <Table.Cell>
                          <Badge color={penalty.state === 'active' ? 'red' : 'gray'}>
                            {penalty.state}
                          </Badge>
                        </Table.Cell>
                      </Table.Row>
                    ))}
                  </Table.Body>
                </Table.Root>
              </WideTable>
              <Text size="2">
                <ThemeLink asChild>
                  <Link to={`/penalties?identifier=${encodeURIComponent(identifier)}`}>
                    All of its penalties
                  </Link>
                </ThemeLink>
              </Text>
            </>
          )
        }
      </QueryState>
    </Flex>
  );
}
