// Measured figures leave a test as JSON in test-results/figures/; `npm run measure` writes them
// into docs/ afterwards, and only for files whose every test passed (docs/testing.md).
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIGURES = join(ROOT, 'test-results/figures');

/** One figures file: what `scripts/write-measured-docs.mjs` reads. */
interface Figures {
  /** The test file that measured them, relative to the repository root. */
  readonly spec: string;
  readonly measuredAt: string;
  /** A section of docs/reliability.md, between `<!-- name:start -->` and `<!-- name:end -->`. */
  readonly section?: { readonly name: string; readonly markdown: string };
  /** A file produced by the test (a screenshot), and where in docs/ it belongs. */
  readonly file?: { readonly from: string; readonly to: string };
}

function currentSpec(): string {
  const testPath = expect.getState().testPath;
  if (!testPath) throw new Error('Measured figures are recorded from inside a test.');
  return relative(ROOT, testPath);
}

async function record(key: string, figures: Omit<Figures, 'spec' | 'measuredAt'>): Promise<void> {
  await mkdir(FIGURES, { recursive: true });
  const entry: Figures = { spec: currentSpec(), measuredAt: new Date().toISOString(), ...figures };
  await writeFile(join(FIGURES, `${key}.json`), `${JSON.stringify(entry, null, 2)}\n`);
}

/**
 * Keeps the figures for docs/reliability.md's section `name`. Call it after the assertions the
 * figures back, so a failing measurement never reaches the docs.
 */
export function recordReliabilitySection(name: string, markdown: string): Promise<void> {
  return record(`reliability.${name}`, { section: { name, markdown } });
}

/** Keeps a copy of `path` for `docsPath` (relative to docs/), written by `npm run measure`. */
export async function recordDocsFile(path: string, docsPath: string): Promise<void> {
  await mkdir(FIGURES, { recursive: true });
  const kept = join(FIGURES, basename(docsPath));
  await copyFile(path, kept);
  await record(`file.${basename(docsPath)}`, {
    file: { from: relative(ROOT, kept), to: join('docs', docsPath) },
  });
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}
