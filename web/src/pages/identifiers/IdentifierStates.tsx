import type { IdentifierView, InspectResult, QuotaState } from '@sluice/admin/api';
import { Badge, Callout, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { traitsOf } from '@sluice/nest/simulator';
import { useCan } from '../../shared/session.hooks';
import { formatDuration, formatTime } from '../../shared/format';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { BlockDialog } from '../../shared/BlockDialog';
import { ResetCountersDialog } from '../../shared/ResetCountersDialog';
import { UnblockDialog } from '../../shared/UnblockDialog';
import {
  useIdentifierQuotas,
  useIdentifierStates,
  useIdentifierTraffic,
} from './identifiers.hooks';
import { WideTable } from '../../shared/WideTable';

interface IdentifierStatesProps {
  identifier: string;
  onDone: (message: string) => void;
}

/** Its state now under each policy, its traffic over the last day, and what an operator may do. */
export function IdentifierStates({ identifier, onDone }: IdentifierStatesProps) {
  const canAct = useCan('operator');
  const { policies, names, states } = useIdentifierStates(identifier);
  const { names: quotaNames, quotas } = useIdentifierQuotas(identifier);
  const quotaOf = (policy: string): QuotaState | undefined =>
    quotas[quotaNames.indexOf(policy)]?.data;
  const traffic = useIdentifierTraffic(identifier);
  const lookupFailure = states.map((state) => state.data?.tierLookup?.failure).find(Boolean);
  const trafficOf = (policy: string): IdentifierView | undefined =>
    traffic.data?.identifiers.find(
      (entry) => entry.policy === policy && entry.identifier === identifier,
    );
  if (policies.error !== null) return <ErrorCallout error={policies.error} />;
  return (
    <Flex direction="column" gap="2">
      <Heading as="h4" size="3">
        Under every policy
      </Heading>
      {lookupFailure != null && (
        <Callout.Root color="amber" role="status">
          <Callout.Text>
            The app&apos;s tier lookup failed ({lookupFailure}): the figures below are at each
            policy&apos;s own rate, not {identifier}&apos;s plan.
          </Callout.Text>
        </Callout.Root>
      )}
      <WideTable>
        <Table.Root variant="surface" size="1">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Now</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Remaining</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Last day</Table.ColumnHeaderCell>
              {canAct && <Table.ColumnHeaderCell>Action</Table.ColumnHeaderCell>}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {names.map((policy, index) => {
              const state = states[index];
              const decision = state?.data;
              const seen = trafficOf(policy);
              const blockedUntil = decision?.blocked?.until;
              return (
                <Table.Row key={policy}>
                  <Table.RowHeaderCell>{policy}</Table.RowHeaderCell>
                  <Table.Cell>
                    {state?.error != null ? (
                      <Text color="red">{state.error.message}</Text>
                    ) : decision === undefined ? (
                      <Text color="gray">…</Text>
                    ) : blockedUntil !== undefined ? (
                      <Badge color="red">blocked until {formatTime(blockedUntil)}</Badge>
                    ) : decision.allowed ? (
                      <Badge color="green">would pass</Badge>
                    ) : (
                      <Badge color="amber">
                        would be refused for {formatDuration(decision.retryAfterMs)}
                      </Badge>
                    )}
                  </Table.Cell>
                  <Table.Cell>
                    {decision === undefined
                      ? '…'
                      : traitsOf(decision.algorithm).holdsSlots
                        ? `${decision.limit - decision.remaining} in flight of ${decision.limit}`
                        : `${decision.remaining} of ${decision.limit}`}
                    {decision !== undefined && (
                      <LimitNote part={decision.policies[0]} quota={quotaOf(policy)} />
                    )}
                  </Table.Cell>
                  <Table.Cell>
                    {seen === undefined
                      ? 'not seen'
                      : `${seen.passed} passed, ${seen.rejected} rejected, last ${formatTime(seen.lastSeen)}`}
                  </Table.Cell>
                  {canAct && (
                    <Table.Cell>
                      <Flex gap="2" wrap="wrap">
                        {blockedUntil !== undefined ? (
                          <UnblockDialog
                            policy={policy}
                            identifier={identifier}
                            keyKind={seen?.keyKind ?? policies.data?.policies[index]?.key ?? 'ip'}
                            onDone={onDone}
                          />
                        ) : (
                          <BlockDialog
                            policy={policy}
                            identifier={identifier}
                            label="Block"
                            ariaLabel={`Block ${identifier} under ${policy}`}
                            onDone={onDone}
                          />
                        )}
                        <ResetCountersDialog
                          policy={policy}
                          identifier={identifier}
                          ariaLabel={`Reset the counters of ${identifier} under ${policy}`}
                          onDone={onDone}
                        />
                      </Flex>
                    </Table.Cell>
                  )}
                </Table.Row>
              );
            })}
          </Table.Body>
        </Table.Root>
      </WideTable>
    </Flex>
  );
}

type PolicyPart = InspectResult['policies'][number];

/**
 * Why the limit is not the policy's own: the tier that decided, an override, credits granted for
 * the period (which is how "21 of 10" can be).
 */
function LimitNote({ part, quota }: { part: PolicyPart | undefined; quota?: QuotaState }) {
  const notes: string[] = [];
  if (part?.tier !== undefined) notes.push(`at tier ${part.tier}`);
  else if (part?.override !== undefined && part.override.tier === null) notes.push('override');
  if (quota !== undefined && quota.granted !== 0) {
    notes.push(
      quota.granted > 0
        ? `${quota.limit} + ${quota.granted} credits`
        : `${quota.limit} − ${-quota.granted} debited`,
    );
  }
  if (notes.length === 0) return null;
  return (
    <Text as="div" size="1" color="gray">
      {notes.join(', ')}
    </Text>
  );
}
