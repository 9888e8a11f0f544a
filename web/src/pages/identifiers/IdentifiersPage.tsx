import { Button, Callout, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Field } from '../../shared/Field';
import { IdentifierPenalties } from './IdentifierPenalties';
import { IdentifierStates } from './IdentifierStates';

export function IdentifiersPage() {
  const [params, setParams] = useSearchParams();
  const identifier = params.get('q')?.trim() ?? '';
  const [draft, setDraft] = useState(identifier);
  const [notice, setNotice] = useState<string | null>(null);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    setParams(draft.trim() === '' ? {} : { q: draft.trim() });
  };
  return (
    <Flex direction="column" gap="4">
      <Heading as="h2" size="6">
        Identifiers
      </Heading>
      <form onSubmit={search} aria-label="Find an identifier">
        <Flex gap="3" align="end" wrap="wrap">
          <Field label="Identifier" hint="An address, a user id, a header's value…">
            <TextField.Root
              type="search"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
            />
          </Field>
          <Button type="submit">Search</Button>
        </Flex>
      </form>
      {notice !== null && (
        <Callout.Root color="green" role="status">
          <Callout.Text>{notice}</Callout.Text>
        </Callout.Root>
      )}
      {identifier === '' ? (
        <Text color="gray">
          Search for an identifier to see its state under every policy and its penalties.
        </Text>
      ) : (
        <>
          <Heading as="h3" size="5">
            {identifier}
          </Heading>
          <IdentifierStates identifier={identifier} onDone={setNotice} />
          <IdentifierPenalties identifier={identifier} />
        </>
      )}
    </Flex>
  );
}
