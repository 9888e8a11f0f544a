import type { PolicyRevision } from '@sluice/admin/api';
import { Callout, Card, Flex, Heading, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useCan } from '../../shared/session.hooks';
import { Field } from '../../shared/Field';
import { formatTime } from '../../shared/format';
import { JsonDiff } from '../../shared/JsonDiff';
import { QueryState } from '../../shared/QueryState';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { useRestoreRevision, useRevisions } from './policies.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { WideTable } from '../../shared/WideTable';

export function PolicyRevisionsPage() {
  const { name = '' } = useParams<{ name: string }>();
  const revisions = useRevisions(name);
  return (
    <Flex direction="column" gap="4">
      <Text size="2">
        <ThemeLink asChild>
          <Link to={`/policies/${encodeURIComponent(name)}`}>← {name}</Link>
        </ThemeLink>
      </Text>
      <Heading as="h2" size="6">
        Revisions of {name}
      </Heading>
      <QueryState query={revisions}>
        {(list) => <Revisions name={name} revisions={list.revisions} />}
      </QueryState>
    </Flex>
  );
}

function Revisions({ name, revisions }: { name: string; revisions: PolicyRevision[] }) {
  const isAdmin = useCan('admin');
  const restore = useRestoreRevision(name);
  const [from, setFrom] = useState(String(revisions[1]?.version ?? revisions[0]?.version ?? ''));
  const [to, setTo] = useState(String(revisions[0]?.version ?? ''));
  const byVersion = (version: string) =>
    revisions.find((revision) => String(revision.version) === version);
  const newest = revisions[0]?.version;
  const versionSelect = (value: string, set: (value: string) => void) => (
    <select className="native-select" value={value} onChange={(event) => set(event.target.value)}>
      {revisions.map((revision) => (
        <option key={revision.version} value={revision.version}>
          version {revision.version} ({revision.action})
        </option>
      ))}
    </select>
  );
  return (
    <Flex direction="column" gap="4">
      <ErrorCallout error={restore.error} />
      {restore.isSuccess && (
        <Callout.Root color="green" role="status">
          <Callout.Text>Restored as version {restore.data.version}.</Callout.Text>
        </Callout.Root>
      )}
      <WideTable>
        <Table.Root variant="surface">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Version</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Change</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>By</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>When</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Note</Table.ColumnHeaderCell>
              {isAdmin && <Table.ColumnHeaderCell>Restore</Table.ColumnHeaderCell>}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {revisions.map((revision) => (
              <Table.Row key={revision.version}>
                <Table.RowHeaderCell>{revision.version}</Table.RowHeaderCell>
                <Table.Cell>{revision.action}</Table.Cell>
                <Table.Cell>{revision.actor}</Table.Cell>
                <Table.Cell>{formatTime(revision.createdAt)}</Table.Cell>
                <Table.Cell>{revision.comment ?? '—'}</Table.Cell>
                {isAdmin && (
                  <Table.Cell>
                    {revision.body !== null && revision.version !== newest && (
                      <ConfirmDialog
                        label="Restore"
                        ariaLabel={`Restore version ${revision.version}`}
                        title={`Restore version ${revision.version} of ${name}?`}
                        description="It becomes a new revision, enforced by every instance within a second; restoring the present one undoes it."
                        triggerVariant="soft"
                        triggerSize="1"
                        busy={restore.isPending && restore.variables?.version === revision.version}
                        error={restore.error?.message ?? null}
                        onConfirm={async (comment) => {
                          try {
                            await restore.mutateAsync({ version: revision.version, comment });
                            return true;
                          } catch {
                            return false;
                          }
                        }}
                      />
                    )}
                  </Table.Cell>
                )}
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </WideTable>
      <Card>
        <Flex direction="column" gap="3">
          <Heading as="h3" size="3">
            Compare two versions
          </Heading>
          <Flex gap="3" wrap="wrap">
            <Field label="From version">{versionSelect(from, setFrom)}</Field>
            <Field label="To version">{versionSelect(to, setTo)}</Field>
          </Flex>
          <JsonDiff
            label={`Changes from version ${from} to version ${to}`}
            before={byVersion(from)?.body ?? null}
            after={byVersion(to)?.body ?? null}
          />
        </Flex>
      </Card>
    </Flex>
  );
}
