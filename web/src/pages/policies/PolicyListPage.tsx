import type { PolicyDrift, PolicyView } from '@sluice/admin/api';
import { Badge, Button, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { useCan } from '../../shared/session.hooks';
import { formatTime } from '../../shared/format';
import { rateText } from '../../shared/duration';
import { traitsOf } from '@sluice/nest/simulator';
import { QueryState } from '../../shared/QueryState';
import { ALGORITHM_LABELS } from './policy-form';
import { usePolicies } from './policies.hooks';
import { WideTable } from '../../shared/WideTable';

/**
 * The policy's rate as the editor spells it ("5 per minute"; a concurrency policy's "2 at a
 * time"), then each tier's limit, so a plan's rate is read where the base one is.
 */
function rate(policy: PolicyView): string {
  const base = traitsOf(policy.algorithm).holdsSlots
    ? `${policy.limit} at a time`
    : policy.calendar !== null
      ? `${policy.limit} per ${policy.calendar.unit} (${policy.calendar.timeZone})`
      : `${rateText(policy.limit, policy.periodMs)}${policy.burst === null ? '' : `, burst ${policy.burst}`}`;
  const tiers = Object.entries(policy.tiers ?? {}).map(([name, tier]) => `${name} ${tier.limit}`);
  return tiers.length === 0 ? base : `${base}; ${tiers.join(', ')}`;
}

/** The marks of a policy that drifted from its code default or from the policy file applied. */
function DriftMarks({ drift }: { drift: PolicyDrift }) {
  return (
    <>
      {drift.fromFile === 'differs' && (
        <Badge
          color="amber"
          title="Changed since the policy file was applied: the next apply undoes it"
        >
          differs from file
        </Badge>
      )}
      {drift.fromFile === 'missing' && (
        <Badge color="amber" title="Not in the policy file applied: the next apply removes it">
          not in file
        </Badge>
      )}
      {drift.fromCode === true && (
        <Badge color="gray" title="Its rules differ from the default the app's code gives it">
          edited from code
        </Badge>
      )}
    </>
  );
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
              {list.file === null
                ? ' · no policy file applied'
                : ` · policy file applied as version ${list.file.version} by ${list.file.appliedBy}, ${formatTime(list.file.appliedAt)}`}
            </Text>
            <WideTable>
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
                        <Flex gap="2" align="center" wrap="wrap">
                          <Link to={encodeURIComponent(policy.name)}>{policy.name}</Link>
                          <DriftMarks drift={policy.drift} />
                        </Flex>
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
                              {route.countedByAddress && (
                                <Badge
                                  color="amber"
                                  ml="2"
                                  title="No user was set when Sluice decided a request here, so it was counted by its address: the route's own auth guard may run after Sluice's"
                                >
                                  counted by address
                                </Badge>
                              )}
                            </Text>
                          ))
                        )}
                      </Table.Cell>
                      <Table.Cell>{policy.version}</Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            </WideTable>
          </>
        )}
      </QueryState>
    </Flex>
  );
}
