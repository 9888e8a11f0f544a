import { Flex, Heading, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { formatTime } from '../../shared/format';
import { QueryState } from '../../shared/QueryState';
import { useTopIdentifiers } from './overview.hooks';
import { WideTable } from '../../shared/WideTable';

const SHOWN = 10;

/**
 * The identifiers refused most, across policies: the identifier stats keep a count per
 * identifier (bounded in number), not per minute, so no time range can be applied to them.
 */
export function TopRejected() {
  const identifiers = useTopIdentifiers();
  return (
    <Flex direction="column" gap="2">
      <Heading as="h3" size="4">
        Most rejected identifiers
      </Heading>
      <Text size="1" color="gray">
        Counted since each was first seen, until a day without requests: the range chosen for the
        charts does not apply to this list.
      </Text>
      <QueryState query={identifiers}>
        {(list) => {
          const top = list.identifiers
            .filter((identifier) => identifier.rejected > 0)
            .sort((a, b) => b.rejected - a.rejected)
            .slice(0, SHOWN);
          if (top.length === 0) return <Text color="gray">Nobody has been rejected today.</Text>;
          return (
            <WideTable>
              <Table.Root variant="surface" size="1">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>Rejected</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>Passed</Table.ColumnHeaderCell>
                    <Table.ColumnHeaderCell>Last seen</Table.ColumnHeaderCell>
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {top.map((identifier) => (
                    <Table.Row key={`${identifier.policy}/${identifier.identifier}`}>
                      <Table.RowHeaderCell>
                        <Link to={`/identifiers?q=${encodeURIComponent(identifier.identifier)}`}>
                          {identifier.identifier}
                        </Link>
                      </Table.RowHeaderCell>
                      <Table.Cell>{identifier.policy}</Table.Cell>
                      <Table.Cell>{identifier.rejected}</Table.Cell>
                      <Table.Cell>{identifier.passed}</Table.Cell>
                      <Table.Cell>{formatTime(identifier.lastSeen)}</Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            </WideTable>
          );
        }}
      </QueryState>
    </Flex>
  );
}
