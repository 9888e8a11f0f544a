import type { QuotaState } from '@sluice/admin/api';
import { Badge, Button, Dialog, Flex, Heading, Table, Text, TextField } from '@radix-ui/themes';
import { useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { formatTime } from '../../shared/format';
import { useCan } from '../../shared/session.hooks';
import { useGrantQuota, useIdentifierQuotas } from './identifiers.hooks';
import { DialogActions } from '../../shared/DialogActions';
import { WideTable } from '../../shared/WideTable';

interface IdentifierQuotasProps {
  identifier: string;
  onDone: (message: string) => void;
}

/**
 * Its quotas (fixed-window policies) in the current period: what it used of its tier's limit, the
 * credits granted, when the period renews; an operator credits or debits them.
 */
export function IdentifierQuotas({ identifier, onDone }: IdentifierQuotasProps) {
  const canAct = useCan('operator');
  const { names, quotas } = useIdentifierQuotas(identifier);
  if (names.length === 0) return null;
  return (
    <Flex direction="column" gap="2">
      <Heading as="h4" size="3">
        Quotas this period
      </Heading>
      <WideTable>
        <Table.Root variant="surface" size="1" aria-label={`Quotas of ${identifier}`}>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Used</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Credits</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Remaining</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Renews</Table.ColumnHeaderCell>
              {canAct && <Table.ColumnHeaderCell>Action</Table.ColumnHeaderCell>}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {names.map((policy, index) => {
              const quota = quotas[index];
              const state = quota?.data;
              return (
                <Table.Row key={policy}>
                  <Table.RowHeaderCell>{policy}</Table.RowHeaderCell>
                  {quota?.error != null ? (
                    <Table.Cell colSpan={4}>
                      <Text color="red">{quota.error.message}</Text>
                    </Table.Cell>
                  ) : state === undefined ? (
                    <Table.Cell colSpan={4}>…</Table.Cell>
                  ) : (
                    <QuotaCells quota={state} />
                  )}
                  {canAct && (
                    <Table.Cell>
                      <GrantDialog policy={policy} identifier={identifier} onDone={onDone} />
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

function QuotaCells({ quota }: { quota: QuotaState }) {
  return (
    <>
      <Table.Cell>
        {quota.used} of {quota.limit}
        {quota.tier !== null && (
          <Badge ml="2" color="gray">
            {quota.tier}
          </Badge>
        )}
      </Table.Cell>
      <Table.Cell>{quota.granted > 0 ? `+${quota.granted}` : String(quota.granted)}</Table.Cell>
      <Table.Cell>{quota.remaining}</Table.Cell>
      <Table.Cell>{formatTime(quota.resetAt)}</Table.Cell>
    </>
  );
}

/** Credits (a positive amount) or debits (a negative one) the period now running, with a note. */
function GrantDialog({
  policy,
  identifier,
  onDone,
}: {
  policy: string;
  identifier: string;
  onDone: (message: string) => void;
}) {
  const grant = useGrantQuota();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  // One key per grant as typed: sending it again after a lost answer cannot grant twice.
  const key = useRef<{ amount: string; note: string; key: string } | null>(null);
  const errors = grant.error instanceof ApiError ? grant.error.fieldErrors : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const units = Number(amount.trim());
    if (key.current?.amount !== amount || key.current.note !== note) {
      key.current = { amount, note, key: crypto.randomUUID() };
    }
    grant.mutate(
      {
        policy,
        identifier,
        key: key.current.key,
        // Sent as typed when it is not a number, so the server names the field.
        amount:
          amount.trim() !== '' && Number.isFinite(units) ? units : (amount as unknown as number),
        note: note.trim() === '' ? null : note,
      },
      {
        onSuccess: (quota) => {
          setOpen(false);
          setAmount('');
          setNote('');
          key.current = null;
          const now = `${identifier} has ${quota.remaining} left under ${policy} (credits ${quota.granted}).`;
          onDone(
            quota.replayed ? `This grant was already made; nothing more was granted. ${now}` : now,
          );
        },
      },
    );
  };
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant="soft" aria-label={`Grant credits to ${identifier} under ${policy}`}>
          Grant credits
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="460px">
        <Dialog.Title>Grant credits</Dialog.Title>
        <Dialog.Description size="2">
          Adds to {identifier}&apos;s allowance under {policy} until the period renews; a negative
          amount takes some away. Recorded in the audit with your note.
        </Dialog.Description>
        <form onSubmit={submit} noValidate>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Amount" hint="e.g. 500, or -100 to debit" error={errors.amount}>
              <TextField.Root
                inputMode="numeric"
                value={amount}
                onChange={(event) => setAmount(event.target.value)}
              />
            </Field>
            <Field label="Note" error={errors.note}>
              <TextField.Root value={note} onChange={(event) => setNote(event.target.value)} />
            </Field>
            <ErrorCallout error={grant.error} />
            <DialogActions label="Grant" pending={grant.isPending} />
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
