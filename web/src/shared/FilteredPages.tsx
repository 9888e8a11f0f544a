import { Text, TextField } from '@radix-ui/themes';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { Field } from './Field';
import { useUrlFilters } from './FilterForm';
import { localInputToIso } from './format';
import { Pager, useCursorPages } from './Pager';
import { QueryState } from './QueryState';

interface CursorPage {
  nextCursor: string | null;
}

/**
 * A history filtered by the address's search parameters (From and To as ISO times) and read a
 * cursor page at a time; the server's field errors by filter name.
 */
export function useFilteredPages<Name extends string, Page extends CursorPage>(
  key: string,
  names: readonly Name[],
  read: (query: Partial<Record<Name, string>>, cursor: string | undefined) => Promise<Page>,
) {
  const filters = useUrlFilters(names);
  const pages = useCursorPages(filters.key);
  const query: Partial<Record<Name, string>> = {};
  for (const name of names) {
    const value = filters.applied[name];
    query[name] = name === 'from' || name === 'to' ? localInputToIso(value) : value || undefined;
  }
  const result = useQuery({
    queryKey: queryKeys.pages(key, query, pages.cursor),
    queryFn: () => read(query, pages.cursor),
  });
  const errors = result.error instanceof ApiError ? result.error.fieldErrors : {};
  return { filters, pages, query, result, errors };
}

interface TimeRangeFieldsProps {
  field: (name: 'from' | 'to') => {
    value: string;
    onChange: (event: { target: { value: string } }) => void;
  };
  errors: Record<string, string>;
}

/** From (inclusive) and To (exclusive), in the reader's local time. */
export function TimeRangeFields({ field, errors }: TimeRangeFieldsProps) {
  return (
    <>
      <Field label="From" error={errors.from}>
        <TextField.Root type="datetime-local" {...field('from')} />
      </Field>
      <Field label="To" error={errors.to}>
        <TextField.Root type="datetime-local" {...field('to')} />
      </Field>
    </>
  );
}

interface PagedResultsProps<Page extends CursorPage> {
  result: UseQueryResult<Page>;
  pages: ReturnType<typeof useCursorPages>;
  isEmpty: (page: Page) => boolean;
  /** What to say when nothing matches. */
  empty: string;
  children: (page: Page) => ReactNode;
}

/** The page's rows, or that nothing matches, then the pager. */
export function PagedResults<Page extends CursorPage>(props: PagedResultsProps<Page>) {
  const { result, pages, isEmpty, empty, children } = props;
  return (
    <QueryState query={result}>
      {(page) => (
        <>
          {isEmpty(page) ? <Text color="gray">{empty}</Text> : children(page)}
          <Pager
            page={pages.page}
            nextCursor={page.nextCursor}
            onNext={pages.next}
            onPrevious={pages.previous}
          />
        </>
      )}
    </QueryState>
  );
}
