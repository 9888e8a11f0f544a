import { Badge, Callout, Flex, Grid, Heading, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Headline } from '../../shared/Headline';
import { PolicyCharts } from '../../shared/PolicyCharts';
import { usePolicies } from '../../shared/policies.hooks';
import { LIVE_RANGE, type TimeRange } from '../../shared/time-range';
import { TimeRangePicker } from '../../shared/TimeRangePicker';
import { useBlockedCount, useTraffic } from '../../shared/traffic.hooks';
import { EnforcementSwitch } from './EnforcementSwitch';
import { InstancesTable } from './InstancesTable';
import { TopRejected } from './TopRejected';
import { ErrorCallout } from '../../shared/ErrorCallout';

const STREAM_LABELS = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
} as const;

export function OverviewPage() {
  const [range, setRange] = useState<TimeRange>(LIVE_RANGE);
  const traffic = useTraffic(range);
  const { live } = traffic;
  const blocked = useBlockedCount();
  const policies = usePolicies();
  const names = [
    ...new Set([
      ...(policies.data?.policies.map((policy) => policy.name) ?? []),
      // A policy's tiers are charted on its own page; here, each policy once.
      ...traffic.points.flatMap((point) =>
        Object.keys(point.policies).filter((name) => !name.includes('~t:')),
      ),
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
      <Headline
        points={traffic.points}
        resolution={traffic.resolution}
        live={range.query === null}
        blockedNow={blocked.data}
        instances={live.instances}
      />
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Text size="2" color="gray">
          Decisions per policy {range.description}, summed over every instance.
        </Text>
        <TimeRangePicker value={range} onChange={setRange} />
      </Flex>
      {traffic.error !== null && (
        <ErrorCallout>The stored figures could not be read: {traffic.error.message}</ErrorCallout>
      )}
      <PolicyCharts
        names={names}
        points={traffic.points}
        resolution={traffic.resolution}
        description={range.description}
      />
      <Grid columns={{ initial: '1', lg: '2' }} gap="5">
        <InstancesTable list={live.instances} />
        <TopRejected />
      </Grid>
    </Flex>
  );
}
