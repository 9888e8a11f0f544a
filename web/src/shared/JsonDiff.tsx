import { Box } from '@radix-ui/themes';
import { diffJson } from 'diff';

/** Fields that hold a time as epoch milliseconds (an override's `expiresAt`). */
const TIME_FIELD = /At$/;

/**
 * The value with its epoch-millisecond times written as ISO 8601 (UTC), so a diff reads
 * `"expiresAt": "2026-11-26T12:00:00.000Z"` rather than `1795721460000`.
 */
export function readableTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(readableTimes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      TIME_FIELD.test(key) && typeof field === 'number' && Number.isSafeInteger(field)
        ? new Date(field).toISOString()
        : readableTimes(field),
    ]),
  );
}

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
  const parts = diffJson(
    readableTimes(before ?? {}) as object,
    readableTimes(after ?? {}) as object,
  );
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
