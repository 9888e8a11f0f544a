import { Flex, Text } from '@radix-ui/themes';
import type { InputHTMLAttributes } from 'react';

/** A native checkbox with its text beside it, the whole line its label. */
export function CheckboxLabel({
  children,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'className'> & { children: string }) {
  return (
    <Text as="label" size="2">
      <Flex gap="2" align="center">
        <input type="checkbox" className="native-checkbox" {...input} />
        {children}
      </Flex>
    </Text>
  );
}
