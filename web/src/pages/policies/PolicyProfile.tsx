import type { PolicyView, TrafficProfileView } from '@sluice/admin/api';
import { Card, Flex, Heading, SegmentedControl, Select, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { windowText } from './profile-proposal';
import { WideTable } from '../../shared/WideTable';
import { useProfile, type ProfileRange } from './policies.hooks';
import {
  ProfileRecommendation,
  useChosenRecommendation,
  useRecommendationChoice,
  type RecommendationChoice,
} from './ProfileRecommendation';

const RANGES: Array<{ id: ProfileRange; label: string }> = [
  { id: 'hour', label: 'Last hour' },
  { id: 'day', label: 'Last day' },
  { id: 'week', label: 'Last week' },
];
/** The Select's value for every request, and for requests of no tier. */
const EVERY = '*';
const NO_TIER = '-';

/**
 * How many requests each identifier made per window of the policy's period: the percentiles,
 * the histogram with the limit drawn on it, and the busiest (docs/operations.md, "Choosing a
 * limit").
 */
export function PolicyProfile({ policy }: { policy: PolicyView }) {
  const name = policy.name;
  const tiers = Object.keys(policy.tiers ?? {});
  const [range, setRange] = useState<ProfileRange>('day');
  const [tierValue, setTierValue] = useState(EVERY);
  const tier = tierValue === EVERY ? null : tierValue === NO_TIER ? '' : tierValue;
  const profile = useProfile(name, range, tier);
  const choice = useRecommendationChoice();
  // A period under a second is recommended from the replay record; the route says when none
  // holds the range.
  const recommendable = profile.data !== undefined;
  const found = useChosenRecommendation(policy, range, tier, choice, recommendable);
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Flex justify="between" align="center" wrap="wrap" gap="3">
          <Heading as="h3" size="3">
            Requests per identifier
          </Heading>
          <Flex gap="3" align="center" wrap="wrap">
            {tiers.length > 0 && (
              <Select.Root value={tierValue} onValueChange={setTierValue} size="1">
                <Select.Trigger aria-label="Tier" />
                <Select.Content>
                  <Select.Item value={EVERY}>Every tier</Select.Item>
                  {tiers.map((each) => (
                    <Select.Item key={each} value={each}>
                      {each}
                    </Select.Item>
                  ))}
                  <Select.Item value={NO_TIER}>No tier</Select.Item>
                </Select.Content>
              </Select.Root>
            )}
            <SegmentedControl.Root
              size="1"
              value={range}
              aria-label="Profile range"
              onValueChange={(id) => setRange(id as ProfileRange)}
            >
              {RANGES.map((each) => (
                <SegmentedControl.Item key={each.id} value={each.id}>
                  {each.label}
                </SegmentedControl.Item>
              ))}
            </SegmentedControl.Root>
          </Flex>
        </Flex>
        {profile.error !== null && (
          <ErrorCallout>The profile could not be read: {profile.error.message}</ErrorCallout>
        )}
        {profile.data !== undefined && (
          <ProfileBody
            profile={profile.data}
            policy={policy}
            choice={choice}
            found={recommendable ? found : null}
          />
        )}
      </Flex>
    </Card>
  );
}

function ProfileBody({
  profile,
  policy,
  choice,
  found,
}: {
  profile: TrafficProfileView;
  policy: PolicyView;
  choice: RecommendationChoice;
  /** The recommendation, where one can be read from this profile; null where not. */
  found: ReturnType<typeof useChosenRecommendation> | null;
}) {
  const window = windowText(profile);
  if (profile.percentiles === null) {
    return (
      <Text size="2" color="gray">
        No window of {window} has been counted in this range yet.
      </Text>
    );
  }
  const { p50, p90, p99, p999 } = profile.percentiles;
  return (
    <Flex direction="column" gap="3">
      <Text size="2">
        Per window of {window}: {profile.windows} windows,{' '}
        {Math.round(profile.identifierWindows / Math.max(1, profile.windows))} identifiers in a
        window on average, {profile.requests} requests.
        {profile.share > 1 && ` Each window kept one identifier in ${profile.share}.`}
      </Text>
      <WideTable>
        <Table.Root size="1" aria-label="Requests one identifier made in one window">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>p50</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>p90</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>p99</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>p99.9</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>max</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>limit now</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            <Table.Row>
              <Table.Cell>{p50}</Table.Cell>
              <Table.Cell>{p90}</Table.Cell>
              <Table.Cell>{p99}</Table.Cell>
              <Table.Cell>{p999}</Table.Cell>
              <Table.Cell>{profile.max}</Table.Cell>
              <Table.Cell>{profile.limit}</Table.Cell>
            </Table.Row>
          </Table.Body>
        </Table.Root>
      </WideTable>
      <ProfileHistogram profile={profile} proposed={found?.data?.limit} />
      {found !== null && <ProfileRecommendation policy={policy} choice={choice} found={found} />}
      {profile.busiest.length > 0 && (
        <WideTable>
          <Table.Root size="1" aria-label="Busiest identifiers">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Counted as</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Tier</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Most in one window</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {profile.busiest.map((each) => (
                <Table.Row
                  key={`${each.keyKind}\u0000${each.key ?? each.identifier}\u0000${each.tier}`}
                >
                  <Table.Cell>{each.identifier}</Table.Cell>
                  <Table.Cell>{each.keyKind}</Table.Cell>
                  <Table.Cell>{each.tier ?? '—'}</Table.Cell>
                  <Table.Cell>
                    {each.most}
                    {each.most > each.limit && ` (over its limit of ${each.limit})`}
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </WideTable>
      )}
    </Flex>
  );
}

const WIDTH = 1000;
const HEIGHT = 160;
/** Room above the bars for the proposed limit's label. */
const TOP = 14;

/**
 * One bar per bucket of requests in a window (the share of identifier-windows in it), in bucket
 * order, and a line where the limit in force falls.
 */
function ProfileHistogram({
  profile,
  proposed,
}: {
  profile: TrafficProfileView;
  /** The limit proposed, drawn beside the one in force; undefined: none. */
  proposed: number | undefined;
}) {
  const buckets = profile.histogram;
  const total = buckets.reduce((sum, each) => sum + each.identifierWindows, 0);
  const tallest = Math.max(...buckets.map((each) => each.identifierWindows));
  const step = WIDTH / buckets.length;
  // The limit's place: after the last bucket that ends at or below it.
  const below = buckets.filter((each) => each.to <= profile.limit).length;
  const proposedAt =
    proposed === undefined ? undefined : buckets.filter((each) => each.to <= proposed).length;
  const over = buckets
    .filter((each) => each.from > profile.limit)
    .reduce((sum, each) => sum + each.identifierWindows, 0);
  const label =
    `Histogram of requests per identifier per window: ${buckets.length} buckets from ` +
    `${buckets[0]?.from ?? 0} to ${buckets.at(-1)?.to ?? 0}; ` +
    `${Math.round((1000 * over) / Math.max(1, total)) / 10} % of identifier-windows above the limit of ${profile.limit}` +
    (proposed === undefined ? '.' : `; the limit proposed, ${proposed}, drawn beside it.`);
  return (
    <figure style={{ margin: 0 }}>
      <svg
        viewBox={`0 0 ${WIDTH} ${TOP + HEIGHT + 16}`}
        width="100%"
        role="img"
        aria-label={label}
        data-testid="profile-histogram"
      >
        {buckets.map((each, at) => {
          const height = Math.max(1, (HEIGHT * each.identifierWindows) / tallest);
          return (
            <rect
              key={each.from}
              x={at * step + 1}
              y={TOP + HEIGHT - height}
              width={Math.max(1, step - 2)}
              height={height}
              fill={each.from > profile.limit ? 'var(--red-9)' : 'var(--accent-9)'}
            >
              <title>
                {each.from === each.to ? each.from : `${each.from}–${each.to}`} requests:{' '}
                {each.identifierWindows} identifier-windows
              </title>
            </rect>
          );
        })}
        <line
          x1={below * step}
          x2={below * step}
          y1={TOP}
          y2={TOP + HEIGHT}
          stroke="var(--gray-12)"
          strokeDasharray="4 3"
        />
        {proposedAt !== undefined && (
          <g data-testid="proposed-limit">
            <line
              x1={proposedAt * step}
              x2={proposedAt * step}
              y1={0}
              y2={TOP + HEIGHT}
              stroke="var(--amber-10)"
              strokeWidth={2}
            />
            <text
              x={proposedAt * step}
              y={10}
              fontSize="10"
              fill="var(--amber-11)"
              textAnchor={proposedAt * step > WIDTH * 0.85 ? 'end' : 'start'}
            >
              {' '}
              proposed {proposed}{' '}
            </text>
          </g>
        )}
        <text x={0} y={TOP + HEIGHT + 12} fontSize="10" fill="var(--gray-11)">
          {buckets[0]?.from}
        </text>
        <text x={WIDTH} y={TOP + HEIGHT + 12} fontSize="10" fill="var(--gray-11)" textAnchor="end">
          {buckets.at(-1)?.to}
        </text>
        <text
          x={below * step}
          y={TOP + HEIGHT + 12}
          fontSize="10"
          fill="var(--gray-12)"
          textAnchor={
            below * step > WIDTH * 0.85 ? 'end' : below * step < WIDTH * 0.15 ? 'start' : 'middle'
          }
        >
          limit {profile.limit}
        </text>
      </svg>
      <figcaption>
        <Text size="1" color="gray">
          {label}
        </Text>
      </figcaption>
    </figure>
  );
}
