import { Card, Flex, Heading } from '@radix-ui/themes';
import { useState } from 'react';
import { Headline } from '../../shared/Headline';
import {
  candidateSeries,
  PolicyCharts,
  sampledSeries,
  tierSeries,
} from '../../shared/PolicyCharts';
import { LIVE_RANGE, type TimeRange } from '../../shared/time-range';
import { TimeRangePicker } from '../../shared/TimeRangePicker';
import { useBlockedCount, useTraffic } from '../../shared/traffic.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';

/**
 * The series a policy's page charts: the policy, and with a candidate the candidate beside the
 * live policy's answers on the same sampled requests; with every identifier sampled, those are
 * the policy's own.
 */
function chartedSeries(name: string, samplePercent: number | null, tiers: string[]): string[] {
  const byTier = tiers.map((tier) => tierSeries(name, tier));
  if (samplePercent === null) return [name, ...byTier];
  if (samplePercent >= 100) return [name, candidateSeries(name), ...byTier];
  return [name, sampledSeries(name), candidateSeries(name), ...byTier];
}

/**
 * One policy's decisions and headline figures, over a range the operator picks.
 * `candidateSample`: the percent of identifiers its candidate is decided for; null without one.
 * `tiers`: the policy's tiers, each charted on its own beside the policy.
 */
export function PolicyTraffic({
  name,
  candidateSample,
  tiers = [],
}: {
  name: string;
  candidateSample: number | null;
  tiers?: string[];
}) {
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
          <ErrorCallout>The stored figures could not be read: {traffic.error.message}</ErrorCallout>
        )}
        <PolicyCharts
          names={chartedSeries(name, candidateSample, tiers)}
          points={traffic.points}
          resolution={traffic.resolution}
          description={range.description}
        />
      </Flex>
    </Card>
  );
}
