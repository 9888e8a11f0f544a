import type { ListEntryView } from '@sluice/admin/api';

const KIND_NAMES: Record<ListEntryView['kind'], string> = {
  address: 'address',
  userAgent: 'User-Agent',
  identifier: 'identifier',
};

/** What a list entry's value is matched against, as an operator reads it. */
export function matchText(entry: ListEntryView): string {
  if (entry.kind !== 'identifier') return KIND_NAMES[entry.kind];
  return `${entry.keyKind ?? ''}${entry.prefix ? ', every one that starts so' : ''}`;
}

/** What the entry's matches did (or would have, in shadow mode). */
export function matchedText(entry: ListEntryView): string {
  const did = entry.list === 'deny' ? 'refused' : 'let through';
  return entry.mode === 'shadow'
    ? `would have ${did} ${entry.hits.shadow}`
    : `${did} ${entry.hits.enforced}`;
}
