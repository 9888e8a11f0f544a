import { Flex, Spinner, Text } from '@radix-ui/themes';

export function Loading() {
  return (
    <Flex align="center" justify="center" gap="2" p="9">
      <Spinner /> <Text>Loading…</Text>
    </Flex>
  );
}
