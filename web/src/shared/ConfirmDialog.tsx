import { AlertDialog, Button, Flex, TextField } from '@radix-ui/themes';
import { useState, type ReactNode } from 'react';
import { Field } from './Field';
import { ErrorCallout } from './ErrorCallout';

interface ConfirmDialogProps {
  /** The trigger's text; also the confirming button's unless `confirmLabel` says otherwise. */
  label: string;
  title: string;
  description: ReactNode;
  confirmLabel?: string;
  /** Red for what takes something away (discard, turn off). */
  danger?: boolean;
  busy?: boolean;
  /** What went wrong the last time, shown in the dialog. */
  error?: string | null;
  triggerVariant?: 'solid' | 'soft';
  triggerSize?: '1' | '2';
  /** The trigger's accessible name, when several sit on one screen. */
  ariaLabel?: string;
  /** Runs with the note typed; resolves true to close the dialog. */
  onConfirm: (note: string | null) => Promise<boolean>;
}

/**
 * An action that cannot be undone with one more click (promote, discard, restore, switch
 * enforcement): asked once more, with a note that goes to the audit.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const confirm = async () => {
    if (await props.onConfirm(note.trim() === '' ? null : note.trim())) {
      setOpen(false);
      setNote('');
    }
  };
  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <AlertDialog.Trigger>
        <Button
          variant={props.triggerVariant ?? 'solid'}
          size={props.triggerSize}
          color={props.danger === true ? 'red' : undefined}
          loading={props.busy}
          aria-label={props.ariaLabel}
        >
          {props.label}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="460px">
        <AlertDialog.Title>{props.title}</AlertDialog.Title>
        <AlertDialog.Description size="2">{props.description}</AlertDialog.Description>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void confirm();
          }}
        >
          <Flex direction="column" gap="3" mt="3">
            <Field label="Change note">
              <TextField.Root value={note} onChange={(event) => setNote(event.target.value)} />
            </Field>
            {props.error != null && <ErrorCallout>{props.error}</ErrorCallout>}
            <Flex gap="3" justify="end">
              <AlertDialog.Cancel>
                <Button type="button" variant="soft" color="gray">
                  Cancel
                </Button>
              </AlertDialog.Cancel>
              <Button
                type="submit"
                color={props.danger === true ? 'red' : undefined}
                loading={props.busy}
              >
                {props.confirmLabel ?? props.label}
              </Button>
            </Flex>
          </Flex>
        </form>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
