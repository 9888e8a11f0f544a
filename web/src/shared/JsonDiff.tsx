import { Box } from '@radix-ui/themes';
import { diffJson } from 'diff';

/** A line diff of two JSON values: "+" added, "−" removed, the rest as context. */
export function JsonDiff({
  before,
  after,
  label,
}: {
  before: unknown;
  after: unknown;
  label: string;
}) {
  const parts = diffJson(before ?? {}, after ?? {});
  return (
    <Box
      role="region"
      aria-label={label}
      style={{ border: '1px solid var(--gray-a5)', borderRadius: 'var(--radius-2)' }}
    >
      {parts.flatMap((part, partIndex) =>
        part.value
          .replace(/\n$/, '')
          .split('\n')
          .map((line, lineIndex) => {
            const marker = part.added ? '+' : part.removed ? '−' : ' ';
            const className = part.added
              ? 'diff-line diff-added'
              : part.removed
                ? 'diff-line diff-removed'
                : 'diff-line';
            return (
              <pre key={`${partIndex}-${lineIndex}`} className={className}>
                <span aria-hidden="true">{marker} </span>
                {part.added && <span className="visually-hidden">added: </span>}
                {part.removed && <span className="visually-hidden">removed: </span>}
                {line}
              </pre>
            );
          }),
      )}
    </Box>
  );
}
