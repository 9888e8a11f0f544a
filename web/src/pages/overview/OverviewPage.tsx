import { Badge, Callout, Flex, Grid, Heading, Text } from '@radix-ui/themes';
import { usePolicies } from '../../shared/policies.hooks';
import { EnforcementSwitch } from './EnforcementSwitch';
import { InstancesTable } from './InstancesTable';
import { useLiveEvents } from '../../shared/live-events.hooks';
import { PolicyCharts } from '../../shared/PolicyCharts';
import { TopRejected } from './TopRejected';

const STREAM_LABELS = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
} as const;

export function OverviewPage() {
  const live = useLiveEvents();
  const policies = usePolicies();
  const names = [
    ...new Set([
      ...(policies.data?.policies.map((policy) => policy.name) ?? []),
      ...live.points.flatMap((point) => Object.keys(point.policies)),
    ]),
  ];
  return (
    <Flex direction="column" gap="5">
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Heading as="h2" size="6">
          Overview
        </Heading>
        <Flex gap="4" align="center">
          <EnforcementSwitch />
          <Badge color={live.stream === 'live' ? 'green' : 'amber'} role="status">
            {STREAM_LABELS[live.stream]}
          </Badge>
        </Flex>
      </Flex>
      {live.unavailable !== null && (
        <Callout.Root color="amber" role="alert">
          <Callout.Text>Live figures are unavailable: {live.unavailable}</Callout.Text>
        </Callout.Root>
      )}
      <Text size="2" color="gray">
        Decisions per policy per second over the last five minutes, summed over every instance.
      </Text>
      <PolicyCharts names={names} points={live.points} />
      <Grid columns={{ initial: '1', lg: '2' }} gap="5">
        <InstancesTable list={live.instances} />
        <TopRejected />
      </Grid>
    </Flex>
  );
}
