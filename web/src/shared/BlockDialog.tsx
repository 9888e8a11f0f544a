import { Button, Dialog, Flex, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { exactDurationText, parseDuration } from './duration';
import { formatTime } from './format';
import { Field } from './Field';
import { useBlock } from './block-actions.hooks';
import { PolicySelect } from './PolicySelect';
import { ErrorCallout } from './ErrorCallout';
import { DialogActions } from './DialogActions';

interface BlockDialogProps {
  policy?: string;
  identifier?: string;
  /** The trigger's text. */
  label?: string;
  /** The trigger's accessible name, when several sit on one screen. */
  ariaLabel?: string;
  onDone?: (message: string) => void;
}

/** A year: the server's longest block (a ban belongs in an override). */
const LONGEST_BLOCK_MS = 365 * 86_400_000;

/**
 * The block's length as people write it ("90 min", "1 h", "2 d", as in the policy editor), or
 * why it is not one. A bare number is refused rather than guessed at: minutes or milliseconds?
 */
export function blockDuration(text: string): { ms: number } | { error: string } {
  const trimmed = text.trim();
  const ms = /^\d+(\.\d+)?$/.test(trimmed) ? undefined : parseDuration(trimmed);
  if (ms === undefined) return { error: 'write it with its unit, like 30 min, 1 h or 2 d' };
  if (ms < 1) return { error: 'must be longer than 0' };
  if (ms > LONGEST_BLOCK_MS) return { error: 'must be at most a year' };
  return { ms };
}

/** Blocks an identifier under a policy by hand, for a duration written as in the editor. */
export function BlockDialog({
  policy = '',
  identifier = '',
  label = 'Block by hand',
  ariaLabel,
  onDone,
}: BlockDialogProps) {
  const block = useBlock();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState({ policy, identifier, duration: '1 h', reason: '' });
  const [durationError, setDurationError] = useState<string | undefined>();
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));
  const errors = block.error instanceof ApiError ? block.error.fieldErrors : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const duration = blockDuration(values.duration);
    if ('error' in duration) {
      setDurationError(duration.error);
      return;
    }
    setDurationError(undefined);
    block.mutate(
      {
        policy: values.policy,
        identifier: values.identifier,
        durationMs: duration.ms,
        reason: values.reason.trim() === '' ? null : values.reason,
      },
      {
        onSuccess: (result) => {
          setOpen(false);
          onDone?.(
            `${result.identifier} is blocked under ${result.policy} for ${exactDurationText(duration.ms)}, until ${formatTime(new Date(result.expiresAt).toISOString())}.`,
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
            <Field label="Duration" error={durationError ?? errors.durationMs}>
              <TextField.Root
                value={values.duration}
                placeholder="30 min, 1 h, 2 d"
                onChange={set('duration')}
              />
            </Field>
            <Field label="Reason" error={errors.reason}>
              <TextField.Root value={values.reason} onChange={set('reason')} />
            </Field>
            <ErrorCallout error={block.error} />
            <DialogActions label="Block" pending={block.isPending} color="red" />
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
