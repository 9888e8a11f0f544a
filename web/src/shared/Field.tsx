import { Box, Text } from '@radix-ui/themes';
import { cloneElement, useId, type ReactElement } from 'react';

interface FieldProps {
  label: string;
  /** The server's (or the form's) message for this field. */
  error?: string | undefined;
  hint?: string;
  /** One input-like element; it gets the id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
}

/** A visible label, the control, and its message, tied together for assistive technology. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error === undefined ? null : errorId, hint === undefined ? null : hintId]
    .filter(Boolean)
    .join(' ');
  return (
    <Box>
      <Text as="label" htmlFor={id} size="2" weight="medium">
        {label}
      </Text>
      {cloneElement(children, {
        id,
        'aria-invalid': error !== undefined,
        'aria-describedby': describedBy === '' ? undefined : describedBy,
      })}
      {hint !== undefined && (
        <Text as="p" id={hintId} size="1" color="gray">
          {hint}
        </Text>
      )}
      {error !== undefined && (
        <Text as="p" id={errorId} size="1" color="red">
          {error}
        </Text>
      )}
    </Box>
  );
}
