import { Box, Button, Card, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { useSignIn } from '../../shared/session.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';

/** Name and token of a credential from SLUICE_ADMIN_TOKENS (or the one-time development token). */
export function SignInPage({ failure }: { failure: Error | null }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ name, password });
  };
  const error = signIn.error ?? failure;
  const fieldErrors = signIn.error instanceof ApiError ? signIn.error.fieldErrors : {};
  return (
    <Flex asChild align="center" justify="center" p="6" minHeight="100vh">
      <main>
        <Card size="4" style={{ width: 400, maxWidth: '100%' }}>
          <form onSubmit={submit} noValidate>
            <Flex direction="column" gap="4">
              <Heading as="h1" size="6">
                Sign in to Sluice
              </Heading>
              <ErrorCallout error={error} />
              <Box>
                <Text as="label" htmlFor="sign-in-name" size="2" weight="medium">
                  Name
                </Text>
                <TextField.Root
                  id="sign-in-name"
                  autoComplete="username"
                  value={name}
                  onChange={(event) => setName(event.target.value)}
                  aria-invalid={fieldErrors.name !== undefined}
                  aria-describedby={
                    fieldErrors.name === undefined ? undefined : 'sign-in-name-error'
                  }
                  autoFocus
                />
                {fieldErrors.name !== undefined && (
                  <Text id="sign-in-name-error" color="red" size="1">
                    {fieldErrors.name}
                  </Text>
                )}
              </Box>
              <Box>
                <Text as="label" htmlFor="sign-in-token" size="2" weight="medium">
                  Token
                </Text>
                <TextField.Root
                  id="sign-in-token"
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  aria-invalid={fieldErrors.password !== undefined}
                  aria-describedby={
                    fieldErrors.password === undefined
                      ? 'sign-in-token-hint'
                      : 'sign-in-token-hint sign-in-token-error'
                  }
                />
                <Text id="sign-in-token-hint" as="p" color="gray" size="1">
                  Your credential&apos;s token; in development, the one-time token this instance
                  printed at start (each instance prints its own).
                </Text>
                {fieldErrors.password !== undefined && (
                  <Text id="sign-in-token-error" color="red" size="1">
                    {fieldErrors.password}
                  </Text>
                )}
              </Box>
              <Button type="submit" loading={signIn.isPending}>
                Sign in
              </Button>
            </Flex>
          </form>
        </Card>
      </main>
    </Flex>
  );
}
