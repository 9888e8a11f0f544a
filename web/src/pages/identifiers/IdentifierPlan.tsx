import type { PlanView } from '@sluice/admin/api';
import {
  AlertDialog,
  Button,
  Dialog,
  Flex,
  Heading,
  Table,
  Text,
  TextField,
} from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { DialogActions } from '../../shared/DialogActions';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { parseDuration } from '../../shared/duration';
import { formatTime } from '../../shared/format';
import { usePolicies } from '../../shared/policies.hooks';
import { useCan } from '../../shared/session.hooks';
import { useChangePlan, useIdentifierPlan } from './identifiers.hooks';
import { WideTable } from '../../shared/WideTable';

interface IdentifierPlanProps {
  identifier: string;
  onDone: (message: string) => void;
}

/**
 * The identifier's plan in one place: the tier it is on under each tiered policy, until when, who
 * set it and why; an operator moves it to another tier everywhere at once, or takes it off.
 */
export function IdentifierPlan({ identifier, onDone }: IdentifierPlanProps) {
  const plan = useIdentifierPlan(identifier);
  const canAct = useCan('operator');
  if (plan.error !== null) return <ErrorCallout error={plan.error} />;
  const view = plan.data;
  if (view === undefined || view.policies.length === 0) return null;
  return (
    <Flex direction="column" gap="2" aria-label={`Plan of ${identifier}`} role="region">
      <Flex justify="between" align="center" gap="3" wrap="wrap">
        <Heading as="h4" size="3">
          Plan
        </Heading>
        {canAct && (
          <Flex gap="2">
            <AssignPlanDialog identifier={identifier} onDone={onDone} />
            {view.policies.some((each) => each.tier !== null) && (
              <RemovePlanButton identifier={identifier} onDone={onDone} />
            )}
          </Flex>
        )}
      </Flex>
      <Text size="2">{planSentence(view)}</Text>
      <WideTable>
        <Table.Root variant="surface" size="1">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Policy</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Tier</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Until</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {view.policies.map((each) => (
              <Table.Row key={each.policy}>
                <Table.RowHeaderCell>{each.policy}</Table.RowHeaderCell>
                <Table.Cell>{each.tier ?? 'as the app says'}</Table.Cell>
                <Table.Cell>
                  {each.expiresAt === null ? '—' : formatTime(each.expiresAt)}
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </WideTable>
    </Flex>
  );
}

/** "On pro until …; set by olga on … (“upgrade #12”)." */
function planSentence(view: PlanView): string {
  const on =
    view.tier !== null
      ? `On ${view.tier}${view.expiresAt === null ? '' : ` until ${formatTime(view.expiresAt)}`}.`
      : view.policies.some((each) => each.tier !== null)
        ? 'On different tiers under different policies.'
        : 'No plan assigned: each policy decides at the tier the app names.';
  const last = view.lastChange;
  if (last === null) return on;
  const what = last.action === 'plan.remove' ? 'Taken off its plan' : 'Set';
  const note = last.note === null ? '' : ` (“${last.note}”)`;
  return `${on} ${what} by ${last.actor} on ${formatTime(last.at)}${note}.`;
}

/** Every tier some policy has: what a plan may name. */
function useTierNames(): string[] {
  const policies = usePolicies();
  const names = new Set<string>();
  for (const policy of policies.data?.policies ?? []) {
    for (const tier of Object.keys(policy.tiers ?? {})) names.add(tier);
  }
  return [...names].sort();
}

function AssignPlanDialog({ identifier, onDone }: IdentifierPlanProps) {
  const change = useChangePlan(identifier);
  const tiers = useTierNames();
  const [open, setOpen] = useState(false);
  const [tier, setTier] = useState('');
  const [lasting, setLasting] = useState('');
  const [note, setNote] = useState('');
  const [lastingError, setLastingError] = useState<string | undefined>(undefined);
  const errors = change.error instanceof ApiError ? change.error.fieldErrors : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = lasting.trim();
    const ms = text === '' ? null : parseDuration(text);
    if (ms === undefined || (ms !== null && ms < 1)) {
      setLastingError('write it with its unit, like 30 d or 12 h, or leave it empty');
      return;
    }
    setLastingError(undefined);
    change.mutate(
      {
        tier,
        expiresAt: ms === null ? null : new Date(Date.now() + ms).toISOString(),
        note: note.trim() === '' ? null : note,
      },
      {
        onSuccess: (view) => {
          setOpen(false);
          onDone(`${identifier} is on ${tier} under ${countOf(view, tier)}.`);
        },
      },
    );
  };
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant="soft" aria-label={`Assign a plan to ${identifier}`}>
          Assign a plan
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="460px">
        <Dialog.Title>Assign a plan</Dialog.Title>
        <Dialog.Description size="2">
          Puts {identifier} on this tier under every policy that has it, and off any other tier, in
          one change every instance applies within a second. Recorded in the audit with your note.
        </Dialog.Description>
        <form onSubmit={submit} noValidate>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Tier" error={errors.tier}>
              <select
                className="native-select"
                value={tier}
                onChange={(event) => setTier(event.target.value)}
              >
                <option value="">Choose a tier</option>
                {tiers.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label="For"
              hint="e.g. 30 d for a trial; empty: until taken off"
              error={lastingError ?? errors.expiresAt}
            >
              <TextField.Root
                value={lasting}
                onChange={(event) => setLasting(event.target.value)}
              />
            </Field>
            <Field label="Note" error={errors.note}>
              <TextField.Root value={note} onChange={(event) => setNote(event.target.value)} />
            </Field>
            <ErrorCallout error={change.error} />
            <DialogActions label="Assign" pending={change.isPending} />
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}

function countOf(view: PlanView, tier: string): string {
  const under = view.policies.filter((each) => each.tier === tier).map((each) => each.policy);
  return under.length === 0 ? 'no policy' : under.join(', ');
}

function RemovePlanButton({ identifier, onDone }: IdentifierPlanProps) {
  const change = useChangePlan(identifier);
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger>
        <Button variant="soft" color="red" aria-label={`Take ${identifier} off its plan`}>
          Remove plan
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="460px">
        <AlertDialog.Title>Take {identifier} off its plan?</AlertDialog.Title>
        <AlertDialog.Description size="2">
          Every policy decides it at the tier the app names again, within a second.
        </AlertDialog.Description>
        <ErrorCallout error={change.error} />
        <Flex gap="3" mt="4" justify="end">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
          <Button
            color="red"
            loading={change.isPending}
            onClick={() =>
              change.mutate(null, { onSuccess: () => onDone(`${identifier} is off its plan.`) })
            }
          >
            Remove plan
          </Button>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
