import type { AuditEntry } from '@sluice/admin/api';
import { Button, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { Fragment, useState } from 'react';
import { api } from '../../api/client';
import { Field } from '../../shared/Field';
import { FilterForm } from '../../shared/FilterForm';
import { PagedResults, TimeRangeFields, useFilteredPages } from '../../shared/FilteredPages';
import { formatTime } from '../../shared/format';
import { JsonDiff } from '../../shared/JsonDiff';
import { WideTable } from '../../shared/WideTable';

const PAGE_SIZE = 50;
const FILTERS = ['actor', 'action', 'from', 'to'] as const;

/** What the admin records; the filter takes any text, these are offered. */
const ACTIONS = [
  'policy.create',
  'policy.replace',
  'policy.delete',
  'policy.restore',
  'policy.promote',
  'policy.revert',
  'policy.seed',
  'candidate.propose',
  'candidate.discard',
  'candidate.expire',
  'enforcement.set',
  'block.create',
  'block.lift',
  'counters.reset',
  'quota.grant',
  'quota.debit',
  'list.add',
  'list.mode',
  'list.replace',
  'list.remove',
  'policy-file.apply',
  'session.sign-in',
  'session.sign-out',
];

export function AuditPage() {
  const { filters, pages, result, errors } = useFilteredPages('audit', FILTERS, (query, cursor) =>
    api.audit({ ...query, cursor, limit: PAGE_SIZE }),
  );
  return (
    <Flex direction="column" gap="4">
      <Heading as="h2" size="6">
        Audit
      </Heading>
      <Text size="2" color="gray">
        Every change made through the admin, newest first: who, from where, and the state before and
        after.
      </Text>
      <FilterForm onApply={filters.apply}>
        <Field label="Actor" error={errors.actor}>
          <TextField.Root {...filters.field('actor')} />
        </Field>
        <Field label="Action" error={errors.action}>
          <select className="native-select" {...filters.field('action')}>
            <option value="">Any action</option>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </Field>
        <TimeRangeFields field={filters.field} errors={errors} />
      </FilterForm>
      <PagedResults
        result={result}
        pages={pages}
        isEmpty={(page) => page.entries.length === 0}
        empty="No change matches."
      >
        {(page) => <AuditTable entries={page.entries} />}
      </PagedResults>
    </Flex>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <WideTable>
      <Table.Root variant="surface" size="1">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeaderCell>When</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Actor</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Action</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Target</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Version</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Note</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>From</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>Change</Table.ColumnHeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {entries.map((entry) => {
            const shown = open.has(entry.id);
            return (
              <Fragment key={entry.id}>
                <Table.Row>
                  <Table.Cell>{formatTime(entry.occurredAt)}</Table.Cell>
                  <Table.RowHeaderCell>{entry.actor}</Table.RowHeaderCell>
                  <Table.Cell>
                    <code>{entry.action}</code>
                  </Table.Cell>
                  <Table.Cell>{entry.target}</Table.Cell>
                  <Table.Cell>{entry.version}</Table.Cell>
                  <Table.Cell>{entry.comment ?? '—'}</Table.Cell>
                  <Table.Cell>{entry.ip ?? '—'}</Table.Cell>
                  <Table.Cell>
                    <Button
                      size="1"
                      variant="soft"
                      aria-expanded={shown}
                      aria-controls={`audit-change-${entry.id}`}
                      onClick={() => toggle(entry.id)}
                    >
                      {shown ? 'Hide change' : 'Show change'}
                    </Button>
                  </Table.Cell>
                </Table.Row>
                {shown && (
                  <Table.Row id={`audit-change-${entry.id}`}>
                    <Table.Cell colSpan={8}>
                      <ChangeDetail entry={entry} />
                    </Table.Cell>
                  </Table.Row>
                )}
              </Fragment>
            );
          })}
        </Table.Body>
      </Table.Root>
    </WideTable>
  );
}

function ChangeDetail({ entry }: { entry: AuditEntry }) {
  const note =
    entry.before === null
      ? 'Created: nothing before.'
      : entry.after === null
        ? 'Removed: nothing after.'
        : null;
  return (
    <Flex direction="column" gap="2">
      {note !== null && <Text size="1">{note}</Text>}
      <JsonDiff
        label={`${entry.action} of ${entry.target}, before and after`}
        before={entry.before}
        after={entry.after}
      />
    </Flex>
  );
}
