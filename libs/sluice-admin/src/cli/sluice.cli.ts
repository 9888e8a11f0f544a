#!/usr/bin/env node
// `npx sluice`: policies as code against a running admin (docs/operations.md, "Policies as code").
import { runSluiceCli } from './cli.command.js';

void runSluiceCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `sluice: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
