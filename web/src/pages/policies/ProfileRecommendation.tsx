import type { PolicyView, RecommendationView, RefusalsView } from '@sluice/admin/api';
import { Button, Callout, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { formatTime } from '../../shared/format';
import { useCan } from '../../shared/session.hooks';
import { useCandidateActions, useRecommendation, type ProfileRange } from './policies.hooks';
import { proposalWithLimit, windowText } from './profile-proposal';

/** The percentile and headroom asked for, kept by the card so they outlive a change of tier. */
export interface RecommendationChoice {
  percentile: number;
  setPercentile: (percentile: number) => void;
  headroomText: string;
  setHeadroomText: (text: string) => void;
}

export function useRecommendationChoice(): RecommendationChoice {
  const [percentile, setPercentile] = useState(99);
  const [headroomText, setHeadroomText] = useState('20');
  return { percentile, setPercentile, headroomText, setHeadroomText };
}

/** The headroom as a whole number of percent from 0 to 1000, or undefined when it is not one. */
export function headroomOf(choice: RecommendationChoice): number | undefined {
  const text = choice.headroomText.trim();
  const headroom = /^\d{1,4}$/.test(text) ? Number(text) : undefined;
  return headroom !== undefined && headroom <= 1000 ? headroom : undefined;
}

/**
 * The recommendation for the card's choice, asked only where the profile's window is the
 * policy's period; the histogram draws its limit and the card states it.
 */
export function useChosenRecommendation(
  policy: PolicyView,
  range: ProfileRange,
  tier: string | null,
  choice: RecommendationChoice,
  recommendable: boolean,
) {
  const headroom = headroomOf(choice);
  return useRecommendation(
    policy.name,
    range,
    tier,
    choice.percentile,
    recommendable ? headroom : undefined,
  );
}

const PERCENTILES = [
  { value: 90, label: 'p90' },
  { value: 99, label: 'p99' },
  { value: 99.9, label: 'p99.9' },
];

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}

/** "… refused 12 of 2 400 identifier-windows (0.5 %) and about 300 requests (1 %)" */
function refusalText(refused: RefusalsView, identifierWindows: number): string {
  return (
    `${refused.identifierWindows} of ${identifierWindows} identifier-windows ` +
    `(${percent(refused.identifierWindowShare)}) and about ${refused.requests} requests ` +
    `(${percent(refused.requestShare)})`
  );
}

/**
 * A limit read from the profile for a percentile and headroom, what it and the limit in force
 * would have refused, and, for an admin, the limit tried as a shadow candidate: a proposal,
 * never applied by itself (docs/operations.md, "Choosing a limit").
 */
export function ProfileRecommendation({
  policy,
  choice,
  found,
}: {
  policy: PolicyView;
  choice: RecommendationChoice;
  found: ReturnType<typeof useChosenRecommendation>;
}) {
  const { percentile, setPercentile, headroomText, setHeadroomText } = choice;
  return (
    <Flex direction="column" gap="2">
      <Heading as="h4" size="2">
        A limit from this traffic
      </Heading>
      <Flex gap="3" align="end" wrap="wrap">
        <Field label="Percentile">
          <select
            className="native-select"
            value={percentile}
            onChange={(event) => setPercentile(Number(event.target.value))}
          >
            {PERCENTILES.map((each) => (
              <option key={each.value} value={each.value}>
                {each.label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Headroom (%)"
          error={
            headroomOf(choice) === undefined ? 'a whole number of percent, 0 to 1000' : undefined
          }
        >
          <TextField.Root
            inputMode="numeric"
            value={headroomText}
            onChange={(event) => setHeadroomText(event.target.value)}
          />
        </Field>
      </Flex>
      {found.error !== null && (
        <ErrorCallout>No limit can be proposed: {found.error.message}</ErrorCallout>
      )}
      {found.data !== undefined && found.data.windows > 0 && (
        <Proposal view={found.data} policy={policy} />
      )}
    </Flex>
  );
}

function Proposal({ view, policy }: { view: RecommendationView; policy: PolicyView }) {
  const isAdmin = useCan('admin');
  const actions = useCandidateActions(policy.name);
  const period = windowText({ calendar: view.calendar, windowMs: view.periodMs });
  // The whole policy's limit is changed for requests of no tier, a tier's for its own; a
  // proposal read over every tier together names neither.
  const target = view.tier ?? (policy.tiers === null ? '' : null);
  return (
    <Flex direction="column" gap="2" data-testid="profile-proposal">
      <Text size="2">
        Proposed: <strong>{view.limit}</strong> per {period} (p{view.percentile} is {view.base},
        plus {view.headroom} %; now {view.currentLimit}). Over this range it would have refused{' '}
        {refusalText(view.refused, view.identifierWindows)}; the limit now would have refused{' '}
        {refusalText(view.refusedNow, view.identifierWindows)}.
      </Text>
      {view.source === 'record' && (
        <Text size="1" color="gray" data-testid="proposal-source">
          Counted per {period} from the recorded requests of its sampled identifiers: the profile
          counts a period under a second per second.
        </Text>
      )}
      {view.replayed !== null && (
        <Text size="2" data-testid="proposal-replayed">
          On the {view.replayed.decided} requests recorded of its sampled identifiers since{' '}
          {formatTime(view.replayed.from)}, the policy's own {view.algorithm} at {view.limit} would
          have refused {view.replayed.refused} (live refused {view.replayed.liveRefused};{' '}
          {view.replayed.newlyRefused} of them newly).
        </Text>
      )}
      {view.identifiers.length > 0 && (
        <Text size="2">
          It would refuse first:{' '}
          {view.identifiers.map((each) => `${each.identifier} (${each.most})`).join(', ')}.
        </Text>
      )}
      {!view.exact && (
        <Text size="1" color="gray">
          An estimate from the profile's windows of {period}: a {view.algorithm} policy also refuses
          within a window (a burst, or a window that slides), so it refuses at least this much. A
          candidate shows what it refuses on live traffic.
        </Text>
      )}
      {isAdmin && target !== null && (
        <Flex gap="3" align="center" wrap="wrap">
          <Button
            variant="soft"
            disabled={policy.candidate != null || actions.propose.isPending}
            onClick={() => actions.propose.mutate(proposalWithLimit(policy, target, view.limit))}
          >
            Try {view.limit} as a candidate
          </Button>
          {policy.candidate != null && (
            <Text size="1" color="gray">
              The policy has a candidate already: promote or discard it first.
            </Text>
          )}
        </Flex>
      )}
      {actions.propose.error !== null && (
        <Callout.Root color="red" role="alert">
          <Callout.Text>
            The candidate was not proposed: {actions.propose.error.message}
          </Callout.Text>
        </Callout.Root>
      )}
    </Flex>
  );
}
