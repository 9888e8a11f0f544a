import type { PolicyView } from '@sluice/admin/api';
import { Badge, Button, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { useCan } from '../../shared/session.hooks';
import { formatDuration } from '../../shared/format';
import { QueryState } from '../../shared/QueryState';
import { ALGORITHM_LABELS } from './policy-form';
import { usePolicies } from './policies.hooks';

function rate(policy: PolicyView): string {
  if (policy.calendar !== null) {
    return `${policy.limit} per ${policy.calendar.unit} (${policy.calendar.timeZone})`;
  }
  const burst = policy.burst === null ? '' : `, burst ${policy.burst}`;
  return `${policy.limit} per ${formatDuration(policy.periodMs)}${burst}`;
}

export function PolicyListPage() {
  const policies = usePolicies();
  const canCreate = useCan('admin');
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="center">
        <Heading as="h2" size="6">
          Policies
        </Heading>
        {canCreate && (
          <Button asChild>
            <Link to="new">New policy</Link>
          </Button>
        )}
      </Flex>
      <QueryState query={policies}>
        {(list) => (
          <>
            <Text size="2" color="gray">
              Version {list.version} · enforcement {list.enforcement ? 'on' : 'off'}
            </Text>
            <Table.Root variant="surface">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>Name</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Algorithm</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Rate</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Key</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Mode</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Routes</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Version</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {list.policies.map((policy) => (
                  <Table.Row key={policy.name}>
                    <Table.RowHeaderCell>
                      <Link to={encodeURIComponent(policy.name)}>{policy.name}</Link>
                      {policy.description !== null && (
                        <Text as="p" size="1" color="gray">
                          {policy.description}
                        </Text>
                      )}
                    </Table.RowHeaderCell>
                    <Table.Cell>{ALGORITHM_LABELS[policy.algorithm]}</Table.Cell>
                    <Table.Cell>{rate(policy)}</Table.Cell>
                    <Table.Cell>{policy.key}</Table.Cell>
                    <Table.Cell>
                      <Badge color={policy.mode === 'enforce' ? 'green' : 'amber'}>
                        {policy.mode}
                      </Badge>
                    </Table.Cell>
                    <Table.Cell>
                      {policy.routes.length === 0 ? (
                        <Text color="gray">no route</Text>
                      ) : (
                        policy.routes.map((route) => (
                          <Text as="div" size="1" key={`${route.owner}.${route.handler}`}>
                            <code>
                              {route.method ?? '*'}{' '}
                              {route.path ?? `${route.owner}.${route.handler}`}
                            </code>
                            {route.tier !== null && ` at tier ${route.tier}`}
                          </Text>
                        ))
                      )}
                    </Table.Cell>
                    <Table.Cell>{policy.version}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </>
        )}
      </QueryState>
    </Flex>
  );
}
