import { Callout, Card, Flex, Heading } from '@radix-ui/themes';
import { useState } from 'react';
import { Headline } from '../../shared/Headline';
import { candidateSeries, PolicyCharts } from '../../shared/PolicyCharts';
import { LIVE_RANGE, type TimeRange } from '../../shared/time-range';
import { TimeRangePicker } from '../../shared/TimeRangePicker';
import { useBlockedCount, useTraffic } from '../../shared/traffic.hooks';

/** One policy's decisions and headline figures, over a range the operator picks. */
export function PolicyTraffic({ name, withCandidate }: { name: string; withCandidate: boolean }) {
  const [range, setRange] = useState<TimeRange>(LIVE_RANGE);
  const traffic = useTraffic(range, name);
  const blocked = useBlockedCount(name);
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Flex justify="between" align="center" wrap="wrap" gap="3">
          <Heading as="h3" size="3">
            Traffic
          </Heading>
          <TimeRangePicker value={range} onChange={setRange} />
        </Flex>
        <Headline
          points={traffic.points}
          resolution={traffic.resolution}
          live={range.query === null}
          policy={name}
          blockedNow={blocked.data}
          instances={traffic.live.instances}
        />
        {traffic.error !== null && (
          <Callout.Root color="red" role="alert">
            <Callout.Text>
              The stored figures could not be read: {traffic.error.message}
            </Callout.Text>
          </Callout.Root>
        )}
        <PolicyCharts
          names={withCandidate ? [name, candidateSeries(name)] : [name]}
          points={traffic.points}
          resolution={traffic.resolution}
          description={range.description}
        />
      </Flex>
    </Card>
  );
}
