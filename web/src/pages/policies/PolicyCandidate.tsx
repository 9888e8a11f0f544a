import type { CandidateComparison } from '@sluice/admin/api';
import { Badge, Callout, Card, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { useCan } from '../../shared/session.hooks';
import { rateText } from '../../shared/duration';
import { formatTime } from '../../shared/format';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { QueryState } from '../../shared/QueryState';
import { useCandidate, useCandidateActions } from './policies.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { WideTable } from '../../shared/WideTable';

/** The policy's shadow candidate: what it changes, where it answers differently, its fate. */
export function PolicyCandidate({ name }: { name: string }) {
  const comparison = useCandidate(name, true);
  return (
    <QueryState query={comparison}>
      {(candidate) => <CandidateCard name={name} candidate={candidate} />}
    </QueryState>
  );
}

function CandidateCard({ name, candidate }: { name: string; candidate: CandidateComparison }) {
  const canAct = useCan('operator');
  const actions = useCandidateActions(name);
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const busy = actions.promote.isPending || actions.discard.isPending;

  const promote = async (comment: string | null): Promise<boolean> => {
    setFailure(null);
    try {
      await actions.promote.mutateAsync({
        ...(confirming ? { confirm: true } : {}),
        ...(comment === null ? {} : { comment }),
      });
      setConfirming(false);
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setConfirming(true);
      else setFailure((error as Error).message);
      return false;
    }
  };
  const discard = async (comment: string | null): Promise<boolean> => {
    setFailure(null);
    try {
      await actions.discard.mutateAsync(comment === null ? {} : { comment });
      return true;
    } catch (error) {
      setFailure((error as Error).message);
      return false;
    }
  };

  return (
    <Card aria-label="Candidate">
      <Flex direction="column" gap="3">
        <Flex justify="between" align="center" wrap="wrap" gap="3">
          <Heading as="h3" size="3">
            Candidate: {rateText(candidate.rules.limit, candidate.rules.periodMs)}
          </Heading>
          <Flex gap="2" align="center">
            {candidate.stale && <Badge color="amber">the policy changed since</Badge>}
            <Text size="1" color="gray">
              proposed by {candidate.proposedBy ?? 'someone'} on {formatTime(candidate.proposedAt)};
              runs until {formatTime(candidate.expiresAt)}
            </Text>
          </Flex>
        </Flex>
        <Text size="2">
          Every instance decides it beside the live policy and never refuses a request with it, for{' '}
          {candidate.samplePercent === 100
            ? 'every identifier'
            : `${candidate.samplePercent} % of identifiers (the same ones on every instance)`}
          . It changes {candidate.changedFields.join(', ') || 'nothing'}.
        </Text>
        {failure !== null && <ErrorCallout>{failure}</ErrorCallout>}
        {confirming && (
          <Callout.Root color="amber" role="alert">
            <Callout.Text>
              The policy changed since this candidate was proposed (it was at version{' '}
              {candidate.baseVersion}, now {candidate.liveVersion}). Promoting replaces that change.
            </Callout.Text>
          </Callout.Root>
        )}
        <Heading as="h4" size="2">
          Where they answer differently
        </Heading>
        {candidate.differences.length === 0 ? (
          <Text size="2" color="gray">
            No identifier yet.
          </Text>
        ) : (
          <WideTable>
            <Table.Root size="1" variant="surface" aria-label="Identifiers answered differently">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Candidate would have refused</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>
                    Live refused, of the same requests
                  </Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Last seen</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {candidate.differences.map((row) => (
                  <Table.Row key={`${row.keyKind} ${row.identifier}`}>
                    <Table.RowHeaderCell>
                      {row.identifier} <Text color="gray">({row.keyKind})</Text>
                    </Table.RowHeaderCell>
                    <Table.Cell>{row.candidateRefuses}</Table.Cell>
                    <Table.Cell>{row.liveRefuses}</Table.Cell>
                    <Table.Cell>{formatTime(row.lastSeen)}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </WideTable>
        )}
        {canAct && (
          <Flex gap="3">
            <ConfirmDialog
              label={confirming ? 'Promote anyway' : 'Promote'}
              title={`Promote the candidate of ${name}?`}
              description={`Every instance enforces ${rateText(candidate.rules.limit, candidate.rules.periodMs)} within a second, as a new revision of ${name}. Restoring the present revision undoes it.`}
              busy={busy}
              error={
                confirming
                  ? `The policy changed since this candidate was proposed (at version ${candidate.baseVersion}, now ${candidate.liveVersion}): promoting replaces that change.`
                  : failure
              }
              onConfirm={promote}
            />
            <ConfirmDialog
              label="Discard"
              title={`Discard the candidate of ${name}?`}
              description="Its comparison is lost; the live policy does not change."
              danger
              triggerVariant="soft"
              busy={busy}
              error={failure}
              onConfirm={discard}
            />
          </Flex>
        )}
      </Flex>
    </Card>
  );
}
