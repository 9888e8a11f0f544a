import {
  Button,
  Callout,
  Flex,
  Heading,
  Link as ThemeLink,
  Text,
  TextField,
} from '@radix-ui/themes';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { queryKeys } from '../../api/query-keys';
import { Field } from '../../shared/Field';
import { IdentifierPenalties } from './IdentifierPenalties';
import { IdentifierPlan } from './IdentifierPlan';
import { IdentifierQuotas } from './IdentifierQuotas';
import { IdentifierStates } from './IdentifierStates';
import { useIdentifierMatches } from './identifiers.hooks';

export function IdentifiersPage() {
  const [params, setParams] = useSearchParams();
  const identifier = params.get('q')?.trim() ?? '';
  const [draft, setDraft] = useState(identifier);
  // Following a link to another identifier puts it in the search field too: adjusted while
  // rendering, as React advises for state that follows a prop, rather than in an effect.
  const [shown, setShown] = useState(identifier);
  if (shown !== identifier) {
    setShown(identifier);
    setDraft(identifier);
  }
  const [notice, setNotice] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const search = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    setParams(draft.trim() === '' ? {} : { q: draft.trim() });
    // Searching again reads everything again: what the screen shows is what holds now.
    void queryClient.invalidateQueries({ queryKey: queryKeys.identifiers.all });
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
          <IdentifierMatches text={identifier} />
          <IdentifierPlan identifier={identifier} onDone={setNotice} />
          <IdentifierStates identifier={identifier} onDone={setNotice} />
          <IdentifierQuotas identifier={identifier} onDone={setNotice} />
          <IdentifierPenalties identifier={identifier} />
        </>
      )}
    </Flex>
  );
}

/** The other identifiers that hold the text, each a link to its own page. */
function IdentifierMatches({ text }: { text: string }) {
  const matches = useIdentifierMatches(text);
  const found = matches.data ?? [];
  if (found.length === 0) return null;
  return (
    <nav aria-label={`Identifiers containing ${text}`}>
      <Text size="2" as="p">
        Also containing “{text}”:
      </Text>
      <Flex gap="3" wrap="wrap" mt="1">
        {found.map((each) => (
          <ThemeLink key={each} asChild size="2">
            <Link to={`?q=${encodeURIComponent(each)}`}>{each}</Link>
          </ThemeLink>
        ))}
      </Flex>
    </nav>
  );
}
