import type { InstanceList, StatsPoint } from '@sluice/admin/api';
import { Card, Grid, Text } from '@radix-ui/themes';
import { headlineFigures, instancesOnVersion, LIVE_RATE_SECONDS } from './headline';
import type { Resolution } from './time-range';

interface HeadlineProps {
  points: readonly StatsPoint[];
  resolution: Resolution;
  live: boolean;
  /** One policy's figures; every policy's when absent. */
  policy?: string;
  blockedNow: number | undefined;
  instances: InstanceList | null;
}

const percent = (share: number | null) =>
  share === null ? '—' : `${(share * 100).toFixed(share > 0 && share < 0.001 ? 2 : 1)} %`;

const SECONDS_PER: Record<Resolution, number> = { second: 1, minute: 60, hour: 3600 };

/**
 * A rate in the unit of the range's own points (per second live, per minute over an hour, per
 * hour over a day or a week): one unit per range, so the headline does not switch units as the
 * traffic crosses one a second, and a week's quiet policy does not read "0.0 per second".
 */
export function rateText(perSecond: number, unit: Resolution): { value: string; unit: string } {
  const value = perSecond * SECONDS_PER[unit];
  return { value: value >= 100 ? Math.round(value).toLocaleString() : value.toFixed(1), unit };
}

/** The figures an operator looks at first, over the range shown. */
export function Headline({
  points,
  resolution,
  live,
  policy,
  blockedNow,
  instances,
}: HeadlineProps) {
  const figures = headlineFigures(points, resolution, live, policy);
  const over = live ? `the last ${LIVE_RATE_SECONDS} s` : 'the range shown';
  const shown = rateText(figures.perSecond, resolution);
  const cells = [
    { id: 'rate', label: `Decisions per ${shown.unit}`, value: shown.value, hint: over },
    { id: 'refused', label: 'Refused', value: percent(figures.refusedShare), hint: over },
    { id: 'delayed', label: 'Delayed', value: percent(figures.delayedShare), hint: over },
    {
      id: 'blocked',
      label: 'Blocked now',
      value: blockedNow === undefined ? '…' : blockedNow.toLocaleString(),
      hint: 'identifiers',
    },
    {
      id: 'instances',
      label: 'On the current version',
      value:
        instances === null
          ? '…'
          : `${instancesOnVersion(instances)} of ${instances.instances.length}`,
      hint: instances?.version == null ? 'instances' : `instances, version ${instances.version}`,
    },
  ];
  return (
    <Grid columns={{ initial: '2', sm: '3', md: '5' }} gap="3" role="group" aria-label="Headline">
      {cells.map((cell) => (
        <Card key={cell.id}>
          <Text as="div" size="1" color="gray">
            {cell.label}
          </Text>
          <Text as="div" size="6" weight="bold" data-testid={`headline-${cell.id}`}>
            {cell.value}
          </Text>
          <Text as="div" size="1" color="gray">
            {cell.hint}
          </Text>
        </Card>
      ))}
    </Grid>
  );
}
