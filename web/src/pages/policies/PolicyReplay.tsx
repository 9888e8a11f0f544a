import type { ReplayRule, ReplayView } from '@sluice/admin/api';
import { Button, Card, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { formatTime } from '../../shared/format';
import { WideTable } from '../../shared/WideTable';
import { useReplay } from './policies.hooks';

const RANGES = [
  { minutes: 15, label: 'the last 15 minutes' },
  { minutes: 60, label: 'the last hour' },
  { minutes: 240, label: 'the last 4 hours' },
  { minutes: 1440, label: 'the last day' },
];
const SHOWN = 10;

/**
 * The policy's recorded requests replayed through the rule as the editor holds it, beside what
 * the live rule did (docs/operations.md, "Choosing a limit"): nothing is applied; "Try as
 * candidate" under the form runs it on live traffic.
 */
export function PolicyReplay({ name, rule }: { name: string; rule: () => ReplayRule | string }) {
  const [minutes, setMinutes] = useState(60);
  const replay = useReplay(name);
  const [problem, setProblem] = useState<string | null>(null);
  const run = () => {
    const asked = rule();
    if (typeof asked === 'string') {
      setProblem(asked);
      return;
    }
    setProblem(null);
    replay.mutate({ rule: asked, minutes });
  };
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Heading as="h3" size="3">
          Replay recorded traffic
        </Heading>
        <Text size="2" color="gray">
          The requests this policy's sampled identifiers made, run through the rule as edited and
          set beside what the live rule did. Nothing is sent to the instances.
        </Text>
        <Flex gap="3" align="end" wrap="wrap">
          <Field label="Over">
            <select
              className="native-select"
              value={minutes}
              onChange={(event) => setMinutes(Number(event.target.value))}
            >
              {RANGES.map((each) => (
                <option key={each.minutes} value={each.minutes}>
                  {each.label}
                </option>
              ))}
            </select>
          </Field>
          <Button variant="soft" onClick={run} disabled={replay.isPending}>
            Replay
          </Button>
        </Flex>
        {problem !== null && <ErrorCallout>{problem}</ErrorCallout>}
        {replay.error !== null && (
          <ErrorCallout>The replay failed: {replay.error.message}</ErrorCallout>
        )}
        {replay.data !== undefined && <ReplayResult view={replay.data} />}
      </Flex>
    </Card>
  );
}

function ReplayResult({ view }: { view: ReplayView }) {
  if (view.records === 0) {
    return (
      <Text size="2" color="gray" data-testid="replay-result">
        No request was recorded in this range.
      </Text>
    );
  }
  return (
    <Flex direction="column" gap="2" data-testid="replay-result">
      <Text size="2">
        {view.decided} requests from {view.identifiers} identifiers (recorded since{' '}
        {formatTime(view.oldest)}): live refused <strong>{view.liveRefused}</strong>, this rule
        would refuse <strong>{view.refused}</strong> — {view.newlyRefused} that live admitted, and
        admit {view.newlyAdmitted} that live refused.
        {view.rule.calendar !== null && ` Counted per calendar ${view.rule.calendar.unit}.`}
      </Text>
      {!view.complete && (
        <Text size="1" color="gray" data-testid="replay-incomplete">
          The record begins after {formatTime(view.history)}, when the rule's window holding this
          range began: requests made before its first are not known, so it may refuse more than
          shown.
        </Text>
      )}
      <ReplayTimeline view={view} />
      <WideTable>
        <Table.Root size="1" aria-label="Replayed identifiers">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Requests</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Refused live</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Would refuse</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {view.byIdentifier.slice(0, SHOWN).map((each) => (
              <Table.Row key={`${each.keyKind}\u0000${each.key ?? each.identifier}`}>
                <Table.Cell>{each.identifier}</Table.Cell>
                <Table.Cell>{each.requests}</Table.Cell>
                <Table.Cell>{each.liveRefused}</Table.Cell>
                <Table.Cell>{each.refused}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </WideTable>
    </Flex>
  );
}

const WIDTH = 400;
const HEIGHT = 80;

/** Refusals minute by minute: live as a line of bars, the replayed rule beside it. */
function ReplayTimeline({ view }: { view: ReplayView }) {
  const minutes = view.timeline;
  const most = Math.max(1, ...minutes.map((each) => Math.max(each.refused, each.liveRefused)));
  const step = WIDTH / Math.max(1, minutes.length);
  const label =
    `Refusals per minute over ${minutes.length} minutes: live at most ` +
    `${Math.max(0, ...minutes.map((each) => each.liveRefused))} a minute, the rule replayed at most ` +
    `${Math.max(0, ...minutes.map((each) => each.refused))}.`;
  return (
    <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label={label}>
      {minutes.map((each, at) => {
        const live = (HEIGHT * each.liveRefused) / most;
        const replayed = (HEIGHT * each.refused) / most;
        return (
          <g key={each.at}>
            <rect
              x={at * step}
              y={HEIGHT - live}
              width={Math.max(1, step / 2 - 1)}
              height={live}
              fill="var(--gray-9)"
            />
            <rect
              x={at * step + step / 2}
              y={HEIGHT - replayed}
              width={Math.max(1, step / 2 - 1)}
              height={replayed}
              fill="var(--red-9)"
            />
          </g>
        );
      })}
    </svg>
  );
}
