// Keeps measured figures in docs/reliability.md: each measurement owns the text between its markers.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const DOC = fileURLToPath(new URL('../../../../docs/reliability.md', import.meta.url));
const NEW_DOC = `# Reliability figures

Figures the system tests measure on a real Redis, PostgreSQL and several demo processes. Each
section says how it was measured; the test that measures it rewrites it on every run.
`;

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`, adding them when absent. */
export async function writeReliabilitySection(name: string, markdown: string): Promise<void> {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const doc = await readFile(DOC, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return NEW_DOC;
    throw error;
  });
  const options = await resolveConfig(DOC);
  // Only this section's prose is re-wrapped; the rest of the page keeps its author's line breaks.
  const body = await format(markdown, { ...options, parser: 'markdown', proseWrap: 'always' });
  const section = `${start}\n${body.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  const updated =
    from >= 0 && to > from
      ? `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}`
      : `${doc.trimEnd()}\n\n${section}\n`;
  // Formatted as `npm run lint` checks it, so a measuring run leaves the docs lint-clean.
  await writeFile(DOC, await format(updated, { ...options, filepath: DOC }));
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}
