import { Button, Dialog, Flex } from '@radix-ui/themes';

interface DialogActionsProps {
  /** The submit button's text: what the form does. */
  label: string;
  /** The request it sent is out: the button shows it and takes no second press. */
  pending: boolean;
  /** red for an action that refuses someone. */
  color?: 'red';
}

/** A dialog form's footer: Cancel closes the dialog, the other button submits the form. */
export function DialogActions({ label, pending, color }: DialogActionsProps) {
  return (
    <Flex gap="3" justify="end">
      <Dialog.Close>
        <Button type="button" variant="soft" color="gray">
          Cancel
        </Button>
      </Dialog.Close>
      <Button type="submit" loading={pending} {...(color === undefined ? {} : { color })}>
        {label}
      </Button>
    </Flex>
  );
}
