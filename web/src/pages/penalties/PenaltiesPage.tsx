import type { PenaltyRecord } from '@sluice/admin/api';
import { Badge, Button, Callout, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ApiError, api } from '../../api/client';
import { Field } from '../../shared/Field';
import { FilterForm, useUrlFilters } from '../../shared/FilterForm';
import { formatDuration, formatTime, localInputToIso } from '../../shared/format';
import { Pager, useCursorPages } from '../../shared/Pager';
import { QueryState } from '../../shared/QueryState';
import { PolicySelect } from '../blocked/PolicySelect';
import { downloadBlob } from './download';

const PAGE_SIZE = 50;
const FILTERS = ['identifier', 'policy', 'from', 'to'] as const;
const STATE_COLORS = { active: 'red', expired: 'gray', lifted: 'green' } as const;

export function PenaltiesPage() {
  const filters = useUrlFilters(FILTERS);
  const pages = useCursorPages(filters.key);
  const query = {
    identifier: filters.applied.identifier || undefined,
    policy: filters.applied.policy || undefined,
    from: localInputToIso(filters.applied.from),
    to: localInputToIso(filters.applied.to),
  };
  const penalties = useQuery({
    queryKey: ['penalties', query, pages.cursor],
    queryFn: () => api.penalties({ ...query, cursor: pages.cursor, limit: PAGE_SIZE }),
  });
  const csv = useMutation({
    mutationFn: async () => downloadBlob(await api.penaltiesCsv(query), 'penalties.csv'),
  });
  const errors = penalties.error instanceof ApiError ? penalties.error.fieldErrors : {};
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Heading as="h2" size="6">
          Penalties
        </Heading>
        <Button variant="soft" loading={csv.isPending} onClick={() => csv.mutate()}>
          Download CSV
        </Button>
      </Flex>
      <FilterForm onApply={filters.apply}>
        <Field label="Identifier" error={errors.identifier}>
          <TextField.Root {...filters.field('identifier')} />
        </Field>
        <Field label="Policy" error={errors.policy}>
          <PolicySelect anyLabel="Any policy" {...filters.field('policy')} />
        </Field>
        <Field label="From" error={errors.from}>
          <TextField.Root type="datetime-local" {...filters.field('from')} />
        </Field>
        <Field label="To" error={errors.to}>
          <TextField.Root type="datetime-local" {...filters.field('to')} />
        </Field>
      </FilterForm>
      {csv.error !== null && (
        <Callout.Root color="red" role="alert">
          <Callout.Text>The CSV could not be made: {csv.error.message}</Callout.Text>
        </Callout.Root>
      )}
      <QueryState query={penalties}>
        {(page) => (
          <>
            {page.penalties.length === 0 ? (
              <Text color="gray">No penalties match.</Text>
            ) : (
              <PenaltyTable penalties={page.penalties} />
            )}
            <Pager
              page={pages.page}
              nextCursor={page.nextCursor}
              onNext={pages.next}
              onPrevious={pages.previous}
            />
          </>
        )}
      </QueryState>
    </Flex>
  );
}

function PenaltyTable({ penalties }: { penalties: PenaltyRecord[] }) {
  return (
    <Table.Root variant="surface" size="1">
      <Table.Header>
        <Table.Row>
          <Table.ColumnHeaderCell>Started</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Identifier</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Offence</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Duration</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Source</Table.ColumnHeaderCell>
          <Table.ColumnHeaderCell>Details</Table.ColumnHeaderCell>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {penalties.map((penalty) => (
          <Table.Row key={penalty.id}>
            <Table.Cell>{formatTime(penalty.startedAt)}</Table.Cell>
            <Table.RowHeaderCell>
              {penalty.identifier}
              <Text as="div" size="1" color="gray">
                {penalty.keyKind}
              </Text>
            </Table.RowHeaderCell>
            <Table.Cell>
              {penalty.policy}
              <Text as="div" size="1" color="gray">
                version {penalty.policyVersion}
              </Text>
            </Table.Cell>
            <Table.Cell>{penalty.source === 'manual' ? '—' : penalty.offence}</Table.Cell>
            <Table.Cell>{formatDuration(penalty.durationMs)}</Table.Cell>
            <Table.Cell>
              <Badge color={STATE_COLORS[penalty.state]}>{penalty.state}</Badge>
            </Table.Cell>
            <Table.Cell>
              {penalty.source === 'manual'
                ? `by hand, ${penalty.createdBy ?? 'unknown'}`
                : 'automatic'}
            </Table.Cell>
            <Table.Cell>
              <PenaltyDetails penalty={penalty} />
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}

function PenaltyDetails({ penalty }: { penalty: PenaltyRecord }) {
  const lines = [
    penalty.trigger === null
      ? null
      : `${penalty.trigger.count} of ${penalty.trigger.limit} per ${formatDuration(penalty.trigger.windowMs)} (${penalty.trigger.algorithm})`,
    penalty.reason,
    penalty.route,
    penalty.liftedAt === null
      ? null
      : `lifted ${formatTime(penalty.liftedAt)}${penalty.liftedBy === null ? '' : ` by ${penalty.liftedBy}`}${penalty.liftReason === null ? '' : `: ${penalty.liftReason}`}`,
  ].filter((line): line is string => line !== null);
  return (
    <>
      {lines.map((line) => (
        <Text as="div" size="1" key={line}>
          {line}
        </Text>
      ))}
    </>
  );
}
