import type { DecisionCounts, StatsPoint } from '@sluice/admin/api';
import { Box, Card, DataList, Grid, Heading, Text } from '@radix-ui/themes';
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
] as const;

type SeriesKey = (typeof SERIES)[number]['key'];
type Row = Record<SeriesKey, number> & { at: string };

const TIME = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Refusals by the rate and by a block count alike as rejected. */
function rowOf(at: string, counts: DecisionCounts | undefined): Row {
  return {
    at: TIME.format(new Date(at)),
    allowed: counts?.allowed ?? 0,
    rejected: (counts?.rejected ?? 0) + (counts?.blocked ?? 0),
    delayed: counts?.delayed ?? 0,
    shadowRejected: counts?.shadowRejected ?? 0,
  };
}

/** Each policy's decisions per second over the shown window, with its totals. */
export function PolicyCharts({ names, points }: { names: string[]; points: StatsPoint[] }) {
  return (
    <Grid columns={{ initial: '1', md: '2' }} gap="4">
      {names.map((name) => {
        const rows = points.map((point) => rowOf(point.at, point.policies[name]));
        const total = (key: SeriesKey) => rows.reduce((sum, row) => sum + row[key], 0);
        const rejected = total('rejected');
        return (
          <Card key={name}>
            <Heading as="h3" size="3" mb="2">
              {name}
            </Heading>
            <DataList.Root
              orientation="horizontal"
              size="1"
              mb="2"
              aria-label={`${name}, last five minutes`}
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
            </DataList.Root>
            <Box
              role="img"
              aria-label={`Decisions per second for ${name}: ${total('allowed')} allowed and ${rejected} rejected in the last five minutes`}
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
