import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type {
  PolicyFileApplyResult,
  PolicyFileDocument,
  PolicyFileExport,
  PolicyFilePlan,
} from '../common/policy-file.types.js';
import { AdminCallError, adminApi, apiBase } from './admin-api.client.js';
import { changeLines, conflictLine, planText } from './plan.printer.js';
import { CliInputError, formatOf, readPolicyFile, writePolicyFile } from './policy-file.format.js';

export const USAGE = `Usage: sluice <command> [options]

Policies as code for the Sluice admin (docs/operations.md, "Policies as code").

Commands:
  export [--out FILE] [--format yaml|json] [--candidates]
      Writes every policy and list entry as one file (to stdout without --out).
  diff FILE
      Shows what applying FILE would change, field by field. Exit 1 when it would change something.
  apply FILE [--comment TEXT] [--force]
      Makes the changes in one versioned step, audited with the comment. Refuses when a policy or
      list entry was changed since the file's version, unless --force.

Options:
  --url URL      Where the admin is mounted, e.g. https://app.example.com/sluice (SLUICE_ADMIN_URL)
  --token TOKEN  An admin API token: viewer for export and diff, admin for apply (SLUICE_ADMIN_TOKEN)
  --help         This text

Exit codes: 0 done (diff: no changes), 1 diff found changes, 2 refused or failed.
`;

/** What the command reads and writes: the process's, or a test's. */
export interface CliContext {
  env: Record<string, string | undefined>;
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  fetch?: typeof fetch;
}

const SCHEMA_FILE = 'policy-file.schema.json';

function setting(value: string | undefined, env: string | undefined, name: string): string {
  const given = value ?? env;
  if (given === undefined || given === '') {
    throw new CliInputError(
      `${name} is needed: pass it, or set ${name === '--url' ? 'SLUICE_ADMIN_URL' : 'SLUICE_ADMIN_TOKEN'}`,
    );
  }
  return given;
}

/**
 * The JSON Schema's path relative to `nextTo`, when @sluice/admin is installed where the file is:
 * through the nearest `node_modules/@sluice/admin` as the app sees it, not the folder a link
 * points at (pnpm keeps packages in its store and links them), else as Node resolves it.
 */
function schemaPath(nextTo: string): string | null {
  let schema: string | undefined;
  for (let folder = resolve(nextTo); schema === undefined; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', '@sluice/admin', SCHEMA_FILE);
    if (existsSync(candidate)) schema = candidate;
    else if (dirname(folder) === folder) break;
  }
  try {
    schema ??= createRequire(resolve(nextTo, 'package.json')).resolve(
      `@sluice/admin/${SCHEMA_FILE}`,
    );
  } catch {
    return null;
  }
  const path = relative(nextTo, schema).split('\\').join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

async function fileArgument(
  path: string | undefined,
  command: string,
  cwd: string,
): Promise<{ path: string; document: unknown }> {
  if (path === undefined)
    throw new CliInputError(`sluice ${command} needs the file: sluice ${command} FILE`);
  const full = resolve(cwd, path);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (error) {
    throw new CliInputError(
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return { path, document: readPolicyFile(path, text) };
}

function fileVersion(document: unknown): number {
  const version = (document as Partial<PolicyFileDocument> | null)?.version;
  return typeof version === 'number' ? version : 0;
}

/** Runs one command; resolves the exit code. */
export async function runSluiceCli(argv: string[], context: CliContext): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        out: { type: 'string', short: 'o' },
        format: { type: 'string' },
        candidates: { type: 'boolean' },
        comment: { type: 'string', short: 'm' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [command, path, ...extra] = positionals;
    if (values.help === true || command === undefined || command === 'help') {
      context.out(USAGE);
      return command === undefined && values.help !== true ? 2 : 0;
    }
    if (extra.length > 0) throw new CliInputError(`Unexpected arguments: ${extra.join(' ')}`);
    if (!['export', 'diff', 'apply'].includes(command)) {
      throw new CliInputError(
        `Unknown command "${command}": sluice export, diff or apply (sluice --help)`,
      );
    }
    const url = setting(values.url, context.env.SLUICE_ADMIN_URL, '--url');
    const base = apiBase(url);
    const call = adminApi(
      base,
      setting(values.token, context.env.SLUICE_ADMIN_TOKEN, '--token'),
      context.fetch,
    );

    if (command === 'export') {
      if (path !== undefined)
        throw new CliInputError(
          `sluice export writes to --out FILE or stdout; "${path}" is not an option`,
        );
      const format = formatOf(values.out, values.format);
      const exported = await call<PolicyFileExport>(
        'GET',
        `/policy-file${values.candidates === true ? '?candidates=true' : ''}`,
      );
      const target = values.out === undefined ? undefined : resolve(context.cwd, values.out);
      const text = writePolicyFile(exported, format, {
        url,
        schema: schemaPath(target === undefined ? context.cwd : dirname(target)),
      });
      if (target === undefined) {
        context.out(text);
      } else {
        await writeFile(target, text);
        const count = Object.keys(exported.document.policies).length;
        context.err(
          `Wrote ${count} polic${count === 1 ? 'y' : 'ies'} at version ${exported.document.version} to ${values.out}\n`,
        );
      }
      return 0;
    }

    const file = await fileArgument(path, command, context.cwd);
    if (command === 'diff') {
      const plan = await call<PolicyFilePlan>('POST', '/policy-file/diff', {
        document: file.document,
      });
      context.out(planText(plan, fileVersion(file.document)));
      return plan.changes.length === 0 ? 0 : 1;
    }
    const result = await call<PolicyFileApplyResult>('POST', '/policy-file/apply', {
      document: file.document,
      ...(values.comment === undefined ? {} : { comment: values.comment }),
      ...(values.force === true ? { force: true } : {}),
    });
    const lines = result.changes.flatMap(changeLines);
    if (result.changes.length === 0) {
      lines.push(
        `Nothing to change: the admin (version ${result.version}) already holds what ${file.path} says.`,
      );
    } else {
      lines.push(
        `Applied ${result.changes.length} change${result.changes.length === 1 ? '' : 's'} as version ${result.version}.`,
      );
    }
    if (result.overwritten.length > 0) {
      lines.push('Overwrote (--force):', ...result.overwritten.map(conflictLine));
    }
    context.out(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CliInputError || error instanceof AdminCallError) {
      context.err(`sluice: ${error.message}\n`);
      return 2;
    }
    if (
      error instanceof TypeError &&
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
    ) {
      context.err(`sluice: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
