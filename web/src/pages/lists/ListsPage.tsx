import { Callout, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { formatTime } from '../../shared/format';
import { matchedText, matchText } from '../../shared/list-entry';
import { useLists } from '../../shared/lists.hooks';
import { ListEntryBadges } from '../../shared/ListEntryBadges';
import { QueryState } from '../../shared/QueryState';
import { useCan } from '../../shared/session.hooks';
import { ListEntryDialog } from './ListEntryDialog';
import { useRemoveListEntry, useSetListEntryMode } from './lists.hooks';
import { WideTable } from '../../shared/WideTable';

export function ListsPage() {
  const canAct = useCan('operator');
  const lists = useLists();
  const remove = useRemoveListEntry();
  const setMode = useSetListEntryMode();
  const isAdmin = useCan('admin');
  /** Entries whose reach the server asked about: an admin's next click on the same confirms it. */
  const [asked, setAsked] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Heading as="h2" size="6">
          Allow and deny lists
        </Heading>
        {canAct && <ListEntryDialog onDone={setNotice} />}
      </Flex>
      {notice !== null && (
        <Callout.Root color="green" role="status">
          <Callout.Text>{notice}</Callout.Text>
        </Callout.Root>
      )}
      <QueryState query={lists}>
        {({ entries, max }) => (
          <>
            <Text size="2" color="gray" role="status">
              {entries.length === 0
                ? 'No entries: every request is decided by its policies.'
                : `${entries.length} of at most ${max} entries. Deny entries come first, then allow entries, then the policies' own overrides.`}
            </Text>
            {entries.length > 0 && (
              <WideTable>
                <Table.Root variant="surface" aria-label="List entries">
                  <Table.Header>
                    <Table.Row>
                      <Table.ColumnHeaderCell>Matches</Table.ColumnHeaderCell>
                      {canAct && <Table.ColumnHeaderCell>Action</Table.ColumnHeaderCell>}
                      <Table.ColumnHeaderCell>List</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Applies to</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Matched</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Reason</Table.ColumnHeaderCell>
                      <Table.ColumnHeaderCell>Expires</Table.ColumnHeaderCell>
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {entries.map((entry) => (
                      <Table.Row key={entry.id}>
                        <Table.RowHeaderCell>
                          <code>{entry.value}</code>
                          <Text as="div" size="1" color="gray">
                            {matchText(entry)}
                          </Text>
                        </Table.RowHeaderCell>
                        {canAct && (
                          <Table.Cell>
                            <Flex gap="2" wrap="wrap">
                              <ConfirmDialog
                                label={entry.mode === 'shadow' ? 'Enforce' : 'Shadow'}
                                ariaLabel={`${entry.mode === 'shadow' ? 'Enforce' : 'Shadow'} ${entry.value}`}
                                title={
                                  entry.mode === 'shadow'
                                    ? `Enforce ${entry.value} on the ${entry.list} list?`
                                    : `Put ${entry.value} in shadow mode?`
                                }
                                description={
                                  entry.mode === 'shadow'
                                    ? `From now on it ${entry.list === 'deny' ? 'refuses' : 'lets through'} the requests it matches, on every instance within a second; its counts stay.`
                                    : 'It stops deciding requests and only counts what it would have done; its counts stay.'
                                }
                                triggerVariant="soft"
                                triggerSize="1"
                                busy={setMode.isPending}
                                error={setMode.error?.message ?? null}
                                onConfirm={async () => {
                                  const mode = entry.mode === 'shadow' ? 'enforce' : 'shadow';
                                  // The server says when the entry reaches all traffic or its
                                  // writer (shown in the dialog); an admin who clicks again means it.
                                  const confirm = isAdmin && asked.has(entry.id);
                                  try {
                                    await setMode.mutateAsync({ id: entry.id, mode, confirm });
                                    setNotice(
                                      `${entry.value} is ${mode === 'enforce' ? 'enforced' : 'in shadow mode'}; every instance applies it within a second.`,
                                    );
                                    return true;
                                  } catch (error) {
                                    if (
                                      error instanceof ApiError &&
                                      'confirm' in error.fieldErrors
                                    ) {
                                      setAsked((ids) => new Set(ids).add(entry.id));
                                    }
                                    return false;
                                  }
                                }}
                              />
                              <ConfirmDialog
                                label="Remove"
                                ariaLabel={`Remove ${entry.value}`}
                                title={`Remove ${entry.value} from the ${entry.list} list?`}
                                description="Every instance stops applying it within a second."
                                danger
                                triggerVariant="soft"
                                triggerSize="1"
                                busy={remove.isPending}
                                error={remove.error?.message ?? null}
                                onConfirm={async (comment) => {
                                  try {
                                    await remove.mutateAsync({ id: entry.id, comment });
                                    setNotice(`${entry.value} is off the ${entry.list} list.`);
                                    return true;
                                  } catch {
                                    return false;
                                  }
                                }}
                              />
                            </Flex>
                          </Table.Cell>
                        )}
                        <Table.Cell>
                          <ListEntryBadges entry={entry} />
                        </Table.Cell>
                        <Table.Cell>{entry.policies?.join(', ') ?? 'every policy'}</Table.Cell>
                        <Table.Cell>{matchedText(entry)}</Table.Cell>
                        <Table.Cell>
                          {entry.reason}
                          <Text as="div" size="1" color="gray">
                            by {entry.createdBy}, {formatTime(entry.createdAt)}
                          </Text>
                        </Table.Cell>
                        <Table.Cell>
                          {entry.expiresAt === null ? 'never' : formatTime(entry.expiresAt)}
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
