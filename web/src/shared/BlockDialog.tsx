import { Button, Callout, Dialog, Flex, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { Field } from './Field';
import { useBlock } from './block-actions.hooks';
import { PolicySelect } from './PolicySelect';

interface BlockDialogProps {
  policy?: string;
  identifier?: string;
  /** The trigger's text. */
  label?: string;
  /** The trigger's accessible name, when several sit on one screen. */
  ariaLabel?: string;
  onDone?: (message: string) => void;
}

/** Blocks an identifier under a policy by hand, for a number of minutes. */
export function BlockDialog({
  policy = '',
  identifier = '',
  label = 'Block by hand',
  ariaLabel,
  onDone,
}: BlockDialogProps) {
  const block = useBlock();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState({ policy, identifier, minutes: '60', reason: '' });
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));
  const errors = block.error instanceof ApiError ? block.error.fieldErrors : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const minutes = Number(values.minutes);
    block.mutate(
      {
        policy: values.policy,
        identifier: values.identifier,
        durationMs:
          Number.isFinite(minutes) && values.minutes.trim() !== ''
            ? Math.round(minutes * 60_000)
            : NaN,
        reason: values.reason.trim() === '' ? null : values.reason,
      },
      {
        onSuccess: (result) => {
          setOpen(false);
          onDone?.(
            `${result.identifier} is blocked under ${result.policy} until ${new Date(result.expiresAt).toLocaleString()}.`,
          );
        },
      },
    );
  };
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant="soft" aria-label={ariaLabel}>
          {label}
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="460px">
        <Dialog.Title>Block by hand</Dialog.Title>
        <Dialog.Description size="2">
          Every instance refuses the identifier under the policy until the block ends.
        </Dialog.Description>
        <form onSubmit={submit} noValidate>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Policy" error={errors.policy}>
              <PolicySelect value={values.policy} onChange={set('policy')} />
            </Field>
            <Field label="Identifier" error={errors.identifier}>
              <TextField.Root value={values.identifier} onChange={set('identifier')} />
            </Field>
            <Field label="Duration (minutes)" error={errors.durationMs}>
              <TextField.Root
                inputMode="decimal"
                value={values.minutes}
                onChange={set('minutes')}
              />
            </Field>
            <Field label="Reason" error={errors.reason}>
              <TextField.Root value={values.reason} onChange={set('reason')} />
            </Field>
            {block.error !== null && (
              <Callout.Root color="red" role="alert">
                <Callout.Text>{block.error.message}</Callout.Text>
              </Callout.Root>
            )}
            <Flex gap="3" justify="end">
              <Dialog.Close>
                <Button type="button" variant="soft" color="gray">
                  Cancel
                </Button>
              </Dialog.Close>
              <Button type="submit" color="red" loading={block.isPending}>
                Block
              </Button>
            </Flex>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
