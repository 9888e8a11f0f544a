import { Badge, Callout, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { useState } from 'react';
import { Link } from 'react-router';
import { useCan } from '../../shared/session.hooks';
import { Countdown } from '../../shared/Countdown';
import { Field } from '../../shared/Field';
import { formatTime } from '../../shared/format';
import { QueryState } from '../../shared/QueryState';
import { BlockDialog } from '../../shared/BlockDialog';
import { useBlockedList } from './blocked.hooks';
import { PolicySelect } from '../../shared/PolicySelect';
import { ResetCountersDialog } from '../../shared/ResetCountersDialog';
import { UnblockDialog } from '../../shared/UnblockDialog';
import { WideTable } from '../../shared/WideTable';

export function BlockedPage() {
  const canAct = useCan('operator');
  const [q, setQ] = useState('');
  const [policy, setPolicy] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const blocked = useBlockedList({ q: q.trim() || undefined, policy: policy || undefined });
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Heading as="h2" size="6">
          Blocked
        </Heading>
        {canAct && (
          <Flex gap="2">
            <BlockDialog onDone={setNotice} />
            <ResetCountersDialog onDone={setNotice} />
          </Flex>
        )}
      </Flex>
      {notice !== null && (
        <Callout.Root color="green" role="status">
          <Callout.Text>{notice}</Callout.Text>
        </Callout.Root>
      )}
      <Flex gap="3" wrap="wrap" align="end">
        <Field label="Search identifier">
          <TextField.Root type="search" value={q} onChange={(event) => setQ(event.target.value)} />
        </Field>
        <Field label="Policy">
          <PolicySelect
            anyLabel="Any policy"
            value={policy}
            onChange={(event) => setPolicy(event.target.value)}
          />
        </Field>
      </Flex>
      <QueryState query={blocked}>
        {(list) => (
          <>
            <Text size="2" color="gray" role="status">
              {list.total === 0
                ? 'Nobody is blocked now.'
                : `${list.total} blocked now${list.total > list.blocked.length ? `, the newest ${list.blocked.length} shown` : ''}.`}
            </Text>
            {list.blocked.length > 0 && (
              <WideTable>
                <Table.Root variant="surface">
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
                      {/* Beside the identifier it acts on, so both are on a phone's screen at once. */}
                      {canAct && <Table.ColumnHeaderCell>Action</Table.ColumnHeaderCell>}
                      <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Source</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Started</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Time left</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Reason</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {list.blocked.map((entry) => (
                      <Table.Row
                        key={`${entry.policy}/${entry.keyKind}/${entry.key ?? entry.identifier}`}
                      >
                        <Table.RowHeaderCell>
                          <Link to={`/identifiers?q=${encodeURIComponent(entry.identifier)}`}>
                            {entry.identifier}
                          </Link>
                          <Text as="div" size="1" color="gray">
                            {entry.keyKind}
                            {entry.key !== null && ' · its first 256 characters'}
                          </Text>
                        </Table.RowHeaderCell>
                        {canAct && (
                          <Table.Cell>
                            <UnblockDialog
                              policy={entry.policy}
                              identifier={entry.identifier}
                              identifierKey={entry.key}
                              keyKind={entry.keyKind}
                              onDone={setNotice}
                            />
                          </Table.Cell>
                        )}
                        <Table.Cell>{entry.policy}</Table.Cell>
                        <Table.Cell>
                          {entry.source === 'manual' ? (
                            <Badge color="amber">
                              by hand{entry.createdBy === null ? '' : `, ${entry.createdBy}`}
                            </Badge>
                          ) : (
                            <Badge>offence {entry.offence}</Badge>
                          )}
                        </Table.Cell>
                        <Table.Cell>{formatTime(entry.startedAt)}</Table.Cell>
                        <Table.Cell>
                          <Countdown until={entry.expiresAt} />
                          <Text as="div" size="1" color="gray">
                            until {formatTime(entry.expiresAt)}
                          </Text>
                        </Table.Cell>
                        <Table.Cell>
                          {entry.reason ?? (entry.source === 'manual' ? '—' : 'over the limit')}
                          {entry.route !== null && (
                            <Text as="div" size="1" color="gray">
                              set off on {entry.route}
                            </Text>
                          )}
                        </Table.Cell>
                      </Table.Row>
                    ))}
                  </Table.Body>
                </Table.Root>
              </WideTable>
            )}
          </>
        )}
      </QueryState>
    </Flex>
  );
}
