#!/usr/bin/env node
// `npm run measure`: writes the figures the last test run measured (test-results/figures/) into
// docs/, and only those of test files whose every test passed in that run, as the JSON report
// (test-results/vitest-report.json) says. `npm test` itself never touches docs/ (docs/testing.md).
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = join(ROOT, 'test-results');
const FIGURES = join(RESULTS, 'figures');
const REPORT = join(RESULTS, 'vitest-report.json');
const RELIABILITY = join(ROOT, 'docs/reliability.md');
const NEW_RELIABILITY = `# Reliability figures

Figures the system tests measure on a real Redis, PostgreSQL and several demo processes. Each
section says how it was measured; \`npm run measure\` rewrites it from the last passing run.
`;

function fail(message) {
  console.error(`npm run measure: ${message}`);
  process.exit(1);
}

async function readJson(path, what) {
  const text = await readFile(path, 'utf8').catch((error) => {
    if (error.code === 'ENOENT')
      fail(`${what} is missing (${relative(ROOT, path)}); run npm test first.`);
    throw error;
  });
  return JSON.parse(text);
}

/** Test files (relative paths) whose every test passed in the reported run, and when it began. */
async function passedFiles() {
  const report = await readJson(REPORT, 'the test report');
  const passed = new Set();
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    const allPassed = file.status === 'passed' && tests.every((test) => test.status === 'passed');
    if (allPassed && tests.length > 0) passed.add(relative(ROOT, file.name));
  }
  return { passed, startedAt: report.startTime ?? 0 };
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`, adding them when absent. */
async function replaceSection(doc, name, markdown, options) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  // Only the section's prose is re-wrapped; the rest of the page keeps its author's line breaks.
  const body = await format(markdown, { ...options, parser: 'markdown', proseWrap: 'always' });
  const section = `${start}\n${body.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  return from >= 0 && to > from
    ? `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}`
    : `${doc.trimEnd()}\n\n${section}\n`;
}

const { passed, startedAt } = await passedFiles();
const names = (await readdir(FIGURES).catch(() => [])).filter((name) => name.endsWith('.json'));
const written = [];
const skipped = [];
let reliability = await readFile(RELIABILITY, 'utf8').catch(() => NEW_RELIABILITY);
const options = await resolveConfig(RELIABILITY);
for (const name of names.sort()) {
  const figures = JSON.parse(await readFile(join(FIGURES, name), 'utf8'));
  if (!passed.has(figures.spec)) {
    skipped.push(`${name} (${figures.spec} was not in the last run, or did not pass there)`);
    continue;
  }
  if (Date.parse(figures.measuredAt) < startedAt) {
    skipped.push(`${name} (measured before the last run began)`);
    continue;
  }
  if (figures.section) {
    reliability = await replaceSection(
      reliability,
      figures.section.name,
      figures.section.markdown,
      options,
    );
    written.push(`docs/reliability.md § ${figures.section.name}`);
  }
  if (figures.file) {
    const to = join(ROOT, figures.file.to);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(join(ROOT, figures.file.from), to);
    written.push(figures.file.to);
  }
}
// Formatted as `npm run lint` checks it, so a measuring run leaves the docs lint-clean.
await writeFile(RELIABILITY, await format(reliability, { ...options, filepath: RELIABILITY }));
for (const line of written) console.log(`wrote ${line}`);
for (const line of skipped) console.log(`kept the docs' figures for ${line}`);
if (written.length === 0) fail('no figures from passing test files; nothing written.');
