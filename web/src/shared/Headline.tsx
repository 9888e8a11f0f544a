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

/**
 * A rate in the unit that shows it: per second when there is at least one a second, else per
 * minute or per hour (a week's quiet policy read "0.0/s").
 */
export function rateText(perSecond: number): { value: string; unit: string } {
  const figure = (value: number) =>
    value >= 100 ? Math.round(value).toLocaleString() : value.toFixed(1);
  if (perSecond === 0 || perSecond >= 1) return { value: figure(perSecond), unit: 'second' };
  if (perSecond * 60 >= 1) return { value: figure(perSecond * 60), unit: 'minute' };
  return { value: figure(perSecond * 3600), unit: 'hour' };
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
  const shown = rateText(figures.perSecond);
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
