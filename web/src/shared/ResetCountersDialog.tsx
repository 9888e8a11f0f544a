import { Button, Dialog, Flex, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { Field } from './Field';
import { useResetCounters } from './block-actions.hooks';
import { PolicySelect } from './PolicySelect';
import { ErrorCallout } from './ErrorCallout';
import { DialogActions } from './DialogActions';

interface ResetCountersDialogProps {
  policy?: string;
  identifier?: string;
  /** The trigger's accessible name, when several sit on one screen. */
  ariaLabel?: string;
  onDone?: (message: string) => void;
}

/** Forgets what an identifier has used under a policy: its next request starts afresh. */
export function ResetCountersDialog({
  policy = '',
  identifier = '',
  ariaLabel,
  onDone,
}: ResetCountersDialogProps) {
  const reset = useResetCounters();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState({ policy, identifier });
  const [missing, setMissing] = useState<Record<string, string>>({});
  const errors = {
    ...(reset.error instanceof ApiError ? reset.error.fieldErrors : {}),
    ...missing,
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const absent: Record<string, string> = {};
    if (values.policy === '') absent.policy = 'Choose a policy';
    if (values.identifier.trim() === '') absent.identifier = 'Enter an identifier';
    setMissing(absent);
    if (Object.keys(absent).length > 0) return;
    reset.mutate(values, {
      onSuccess: () => {
        setOpen(false);
        onDone?.(`The counters of ${values.identifier} under ${values.policy} are reset.`);
      },
    });
  };
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant="soft" color="gray" aria-label={ariaLabel}>
          Reset counters
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="460px">
        <Dialog.Title>Reset counters</Dialog.Title>
        <Dialog.Description size="2">
          What the identifier has used under the policy is forgotten; a block in force stays.
        </Dialog.Description>
        <form onSubmit={submit} noValidate>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Policy" error={errors.policy}>
              <PolicySelect
                value={values.policy}
                onChange={(event) =>
                  setValues((current) => ({ ...current, policy: event.target.value }))
                }
              />
            </Field>
            <Field label="Identifier" error={errors.identifier}>
              <TextField.Root
                value={values.identifier}
                onChange={(event) =>
                  setValues((current) => ({ ...current, identifier: event.target.value }))
                }
              />
            </Field>
            <ErrorCallout error={reset.error} />
            <DialogActions label="Reset" pending={reset.isPending} />
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
