import { AlertDialog, Button, Flex, TextField } from '@radix-ui/themes';
import { useRef, useState, type FormEvent } from 'react';
import { CheckboxLabel } from './CheckboxLabel';
import { Field } from './Field';
import { useUnblock } from './block-actions.hooks';
import { ErrorCallout } from './ErrorCallout';

interface UnblockDialogProps {
  policy: string;
  identifier: string;
  /** The stored key of an identifier shown cut: what the block is lifted by. */
  identifierKey?: string | null;
  keyKind: string;
  onDone?: (message: string) => void;
}

/**
 * Lifts a block, by default resetting the counters too so the client's next request passes; on
 * request forgetting its offence level as well, so it starts afresh.
 */
export function UnblockDialog({
  policy,
  identifier,
  identifierKey,
  keyKind,
  onDone,
}: UnblockDialogProps) {
  const unblock = useUnblock();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [resetCounters, setResetCounters] = useState(true);
  const [forgetOffences, setForgetOffences] = useState(false);
  const reasonRef = useRef<HTMLInputElement>(null);
  /** Whether the block was lifted: its row, and the button that opened this, are then gone. */
  const lifted = useRef(false);
  const confirm = (event?: FormEvent) => {
    event?.preventDefault();
    unblock.mutate(
      { policy, identifier, key: identifierKey, keyKind, reason, resetCounters, forgetOffences },
      {
        onSuccess: () => {
          lifted.current = true;
          setOpen(false);
          onDone?.(`${identifier} is no longer blocked under ${policy}.`);
        },
      },
    );
  };
  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <AlertDialog.Trigger>
        <Button size="1" variant="soft" aria-label={`Unblock ${identifier}`}>
          Unblock
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content
        maxWidth="460px"
        // The reason is what one types first; Enter in it unblocks (the form below).
        onOpenAutoFocus={(event) => {
          event.preventDefault();
          reasonRef.current?.focus();
        }}
        // Lifted, the row and its Unblock button are gone: focus goes to the page's notice or
        // heading, not to the document's body.
        onCloseAutoFocus={(event) => {
          if (!lifted.current) return;
          event.preventDefault();
          lifted.current = false;
          const landing =
            document.querySelector<HTMLElement>('[role="status"]') ??
            document.querySelector<HTMLElement>('main h2, h2');
          landing?.setAttribute('tabindex', '-1');
          landing?.focus();
        }}
      >
        <AlertDialog.Title>
          Unblock {identifier} under {policy}?
        </AlertDialog.Title>
        <AlertDialog.Description size="2">
          Every instance forgets the block within a second. The lifting is recorded with your name.
        </AlertDialog.Description>
        <form onSubmit={confirm}>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Reason">
              <TextField.Root
                ref={reasonRef}
                value={reason}
                onChange={(event) => setReason(event.target.value)}
              />
            </Field>
            <CheckboxLabel
              checked={resetCounters}
              onChange={(event) => setResetCounters(event.target.checked)}
            >
              Also reset its counters, so its next request passes
            </CheckboxLabel>
            <CheckboxLabel
              checked={forgetOffences}
              onChange={(event) => setForgetOffences(event.target.checked)}
            >
              Also forget its offences, so a next block counts as its first
            </CheckboxLabel>
            <ErrorCallout error={unblock.error} />
          </Flex>
          <Flex gap="3" mt="4" justify="end">
            <AlertDialog.Cancel>
              <Button type="button" variant="soft" color="gray">
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <Button type="submit" loading={unblock.isPending}>
              Unblock
            </Button>
          </Flex>
        </form>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
