import type { InstanceList } from '@sluice/admin/api';
import { Badge, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { formatTime } from '../../shared/format';
import { versionSummary } from '../../shared/headline';
import { WideTable } from '../../shared/WideTable';

export function InstancesTable({ list }: { list: InstanceList | null }) {
  return (
    <Flex direction="column" gap="2">
      <Heading as="h3" size="4">
        Instances
      </Heading>
      {list === null ? (
        <Text color="gray">Waiting for the first heartbeat…</Text>
      ) : (
        <>
          <Text data-testid="instances-on-version" size="2" role="status">
            {versionSummary(list)}
          </Text>
          <WideTable>
            <Table.Root variant="surface" size="1">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>Instance</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Policy version</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Last seen</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {list.instances.map((instance) => (
                  <Table.Row key={instance.id}>
                    <Table.RowHeaderCell>
                      {instance.host} <Text color="gray">pid {instance.pid}</Text>
                    </Table.RowHeaderCell>
                    <Table.Cell>{instance.policyVersion}</Table.Cell>
                    <Table.Cell>
                      <Flex gap="1" wrap="wrap">
                        {instance.stale && <Badge color="red">stale: no heartbeat for 30 s</Badge>}
                        {!instance.upToDate && <Badge color="amber">out of date</Badge>}
                        {!instance.stale && instance.upToDate && (
                          <Badge color="green">current</Badge>
                        )}
                        {instance.lastError !== null && (
                          <>
                            <Badge color="red">sync failed</Badge>
                            {/* As text, not in the badge: a long error wraps instead of widening
                              the table past its scroll area. */}
                            <Text size="1" color="red" data-testid="instance-error">
                              {instance.lastError}
                            </Text>
                          </>
                        )}
                      </Flex>
                    </Table.Cell>
                    <Table.Cell>{formatTime(instance.lastSeen)}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </WideTable>
        </>
      )}
    </Flex>
  );
}
