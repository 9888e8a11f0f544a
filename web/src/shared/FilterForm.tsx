import { Button, Flex } from '@radix-ui/themes';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Filters kept in the address, so a filtered view can be linked and survives a reload: the form
 * edits a draft of `names`, Apply writes it to the search parameters.
 */
export function useUrlFilters<Name extends string>(names: readonly Name[]) {
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(names.map((name) => [name, params.get(name) ?? ''])) as Record<
    Name,
    string
  >;
  const [draft, setDraft] = useState(applied);
  const apply = () => {
    const next = new URLSearchParams();
    for (const name of names) if (draft[name].trim() !== '') next.set(name, draft[name].trim());
    setParams(next);
  };
  const field = (name: Name) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) =>
      setDraft((current) => ({ ...current, [name]: event.target.value })),
  });
  return { applied, field, apply, key: params.toString() };
}

export function FilterForm({ onApply, children }: { onApply: () => void; children: ReactNode }) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply();
  };
  return (
    <form onSubmit={submit} aria-label="Filters">
      <Flex gap="3" wrap="wrap" align="end">
        {children}
        <Button type="submit">Apply</Button>
      </Flex>
    </form>
  );
}
