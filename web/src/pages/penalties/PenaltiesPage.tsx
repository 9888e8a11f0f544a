import type { PenaltyRecord } from '@sluice/admin/api';
import { Badge, Button, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { api } from '../../api/client';
import { Field } from '../../shared/Field';
import { FilterForm } from '../../shared/FilterForm';
import { PagedResults, TimeRangeFields, useFilteredPages } from '../../shared/FilteredPages';
import { formatDuration, formatTime } from '../../shared/format';
import { PolicySelect } from '../../shared/PolicySelect';
import { usePenaltiesCsv } from './penalties.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { WideTable } from '../../shared/WideTable';

const PAGE_SIZE = 50;
const FILTERS = ['identifier', 'policy', 'from', 'to'] as const;
const STATE_COLORS = { active: 'red', expired: 'gray', lifted: 'green' } as const;

export function PenaltiesPage() {
  const { filters, pages, query, result, errors } = useFilteredPages(
    'penalties',
    FILTERS,
    (filter, cursor) => api.penalties({ ...filter, cursor, limit: PAGE_SIZE }),
  );
  const csv = usePenaltiesCsv();
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Heading as="h2" size="6">
          Penalties
        </Heading>
        <Button variant="soft" loading={csv.isPending} onClick={() => csv.mutate(query)}>
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
        <TimeRangeFields field={filters.field} errors={errors} />
      </FilterForm>
      {csv.error !== null && (
        <ErrorCallout>The CSV could not be made: {csv.error.message}</ErrorCallout>
      )}
      <PagedResults
        result={result}
        pages={pages}
        isEmpty={(page) => page.penalties.length === 0}
        empty="No penalties match."
      >
        {(page) => <PenaltyTable penalties={page.penalties} />}
      </PagedResults>
    </Flex>
  );
}

function PenaltyTable({ penalties }: { penalties: PenaltyRecord[] }) {
  return (
    <WideTable>
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
    </WideTable>
  );
}

function PenaltyDetails({ penalty }: { penalty: PenaltyRecord }) {
  const lines = [
    penalty.trigger === null
      ? null
      : `after ${penalty.trigger.count} ${penalty.trigger.count === 1 ? 'refusal' : 'refusals'} over ${penalty.trigger.limit} per ${formatDuration(penalty.trigger.windowMs)} (${penalty.trigger.algorithm})`,
    penalty.reason,
    penalty.route === null ? null : `set off on ${penalty.route}`,
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
