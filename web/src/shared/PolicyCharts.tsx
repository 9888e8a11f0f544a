import type { DecisionCounts, StatsPoint } from '@sluice/admin/api';
import { Box, Card, DataList, Grid, Heading, Text } from '@radix-ui/themes';
import { LIVE_RANGE, type Resolution } from './time-range';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

const SERIES = [
  { key: 'allowed', name: 'allowed', color: 'var(--green-9)' },
  { key: 'rejected', name: 'rejected', color: 'var(--red-9)' },
  { key: 'delayed', name: 'delayed', color: 'var(--blue-9)' },
  { key: 'shadowRejected', name: 'shadow-rejected', color: 'var(--amber-9)' },
  { key: 'storeError', name: 'decided without Redis', color: 'var(--gray-9)' },
] as const;

type SeriesKey = (typeof SERIES)[number]['key'];
type Row = Record<SeriesKey, number> & { at: string };

/** Each resolution's tick: seconds live, minutes over an hour, the day and hour over days. */
const TICK: Record<Resolution, Intl.DateTimeFormat> = {
  second: new Intl.DateTimeFormat(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }),
  minute: new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }),
  hour: new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit' }),
};

/**
 * Where the stats keep a policy's candidate, and the live policy's answers on the requests its
 * candidate was decided for: its name and a suffix no policy name can have.
 */
const CANDIDATE_SUFFIX = '~c';
const SAMPLED_SUFFIX = '~s';

const TIER_SEPARATOR = '~t:';

export const candidateSeries = (policy: string): string => `${policy}${CANDIDATE_SUFFIX}`;
/** Where a policy's decisions made at a tier are counted, beside its own. */
export const tierSeries = (policy: string, tier: string): string =>
  `${policy}${TIER_SEPARATOR}${tier}`;

export const sampledSeries = (policy: string): string => `${policy}${SAMPLED_SUFFIX}`;

/** "reply — candidate" for a candidate's series, the policy's name otherwise. */
export function seriesTitle(name: string): string {
  const tierAt = name.indexOf(TIER_SEPARATOR);
  if (tierAt > 0) {
    return `${name.slice(0, tierAt)} — tier ${name.slice(tierAt + TIER_SEPARATOR.length)}`;
  }
  if (name.endsWith(CANDIDATE_SUFFIX)) {
    return `${name.slice(0, -CANDIDATE_SUFFIX.length)} — candidate`;
  }
  if (name.endsWith(SAMPLED_SUFFIX)) {
    return `${name.slice(0, -SAMPLED_SUFFIX.length)} — live, on the candidate's sample`;
  }
  return name;
}

/** Refusals by the rate and by a block count alike as rejected. */
function rowOf(at: string, counts: DecisionCounts | undefined, resolution: Resolution): Row {
  return {
    at: TICK[resolution].format(new Date(at)),
    allowed: counts?.allowed ?? 0,
    rejected: (counts?.rejected ?? 0) + (counts?.blocked ?? 0),
    delayed: counts?.delayed ?? 0,
    shadowRejected: counts?.shadowRejected ?? 0,
    storeError: counts?.storeError ?? 0,
  };
}

interface PolicyChartsProps {
  names: string[];
  points: StatsPoint[];
  resolution?: Resolution;
  /** Completes "Decisions for reply …": "over the last hour, per minute". */
  description?: string;
}

/** Each policy's decisions over the shown range, one point per second, minute or hour, with totals. */
export function PolicyCharts({
  names,
  points,
  resolution = 'second',
  description = LIVE_RANGE.description,
}: PolicyChartsProps) {
  return (
    <Grid columns={{ initial: '1', md: names.length === 1 ? '1' : '2' }} gap="4">
      {names.map((name) => {
        const rows = points.map((point) => rowOf(point.at, point.policies[name], resolution));
        const total = (key: SeriesKey) => rows.reduce((sum, row) => sum + row[key], 0);
        const rejected = total('rejected');
        return (
          <Card key={name}>
            <Heading as="h3" size="3" mb="2">
              {seriesTitle(name)}
            </Heading>
            <DataList.Root
              orientation="horizontal"
              size="1"
              mb="2"
              aria-label={`${seriesTitle(name)}, ${description}`}
            >
              <DataList.Item>
                <DataList.Label>Allowed</DataList.Label>
                <DataList.Value>{total('allowed')}</DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>Rejected</DataList.Label>
                <DataList.Value>
                  <span data-testid={`rejected-${name}`}>{rejected}</span>
                </DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>Delayed</DataList.Label>
                <DataList.Value>{total('delayed')}</DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>Shadow-rejected</DataList.Label>
                <DataList.Value>{total('shadowRejected')}</DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label>Decided without Redis</DataList.Label>
                <DataList.Value>
                  <span data-testid={`store-error-${name}`}>{total('storeError')}</span>
                </DataList.Value>
              </DataList.Item>
            </DataList.Root>
            <Box
              role="img"
              aria-label={`Decisions for ${seriesTitle(name)} ${description}: ${total('allowed')} allowed and ${rejected} rejected`}
            >
              <ResponsiveContainer width="100%" height={180}>
                <LineChart data={rows}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="at" minTickGap={40} />
                  <YAxis allowDecimals={false} width={40} />
                  <Tooltip />
                  <Legend />
                  {SERIES.map((series) => (
                    <Line
                      key={series.key}
                      dataKey={series.key}
                      name={series.name}
                      stroke={series.color}
                      dot={false}
                      isAnimationActive={false}
                    />
                  ))}
                </LineChart>
              </ResponsiveContainer>
            </Box>
          </Card>
        );
      })}
      {names.length === 0 && <Text color="gray">No policy yet.</Text>}
    </Grid>
  );
}
