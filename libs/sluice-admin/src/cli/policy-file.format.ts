import { Document, isMap, isScalar, parse } from 'yaml';
import type { PolicyFileExport } from '../common/policy-file.types.js';

/** How a file is written: by its name's ending, YAML unless it ends in .json. */
export type PolicyFileFormat = 'yaml' | 'json';

export function formatOf(path: string | undefined, asked: string | undefined): PolicyFileFormat {
  if (asked === 'yaml' || asked === 'json') return asked;
  if (asked !== undefined) throw new CliInputError(`--format must be yaml or json, not "${asked}"`);
  return path?.toLowerCase().endsWith('.json') ? 'json' : 'yaml';
}

/** A mistake in the command line or the file: printed as is, exit code 2. */
export class CliInputError extends Error {}

/**
 * The exported document as text. YAML carries comments: where it came from, and above each policy
 * the handlers it decides and whether it was edited from its code default.
 */
export function writePolicyFile(
  exported: PolicyFileExport,
  format: PolicyFileFormat,
  source: { url: string; schema: string | null },
): string {
  const { document, notes } = exported;
  if (format === 'json') {
    const withSchema = source.schema === null ? document : { $schema: source.schema, ...document };
    return `${JSON.stringify(withSchema, null, 2)}\n`;
  }
  const yaml = new Document(document);
  yaml.commentBefore = [
    ` Sluice policies, exported from ${source.url} at version ${document.version} (${notes.exportedAt}).`,
    ' Check a change with `npx sluice diff FILE`, make it with `npx sluice apply FILE`;',
    ' a policy left out returns to its code default, or is deleted when the code gives it none.',
    ...(source.schema === null ? [] : [` yaml-language-server: $schema=${source.schema}`]),
  ].join('\n');
  const policies = yaml.get('policies', true);
  if (isMap(policies)) {
    for (const pair of policies.items) {
      if (!isScalar(pair.key)) continue;
      const name = String(pair.key.value);
      const lines: string[] = [];
      // Own properties only: a policy may be named `constructor` or `toString`.
      const routes = Object.hasOwn(notes.routes, name) ? (notes.routes[name] ?? []) : [];
      lines.push(routes.length === 0 ? ' used by no route' : ` used by ${routes.join(', ')}`);
      if (notes.editedFromCode.includes(name)) lines.push(' edited: differs from its code default');
      pair.key.commentBefore = lines.join('\n');
    }
  }
  return yaml.toString({ lineWidth: 0 });
}

/** The file's document, parsed as YAML (JSON is YAML too) or, for a .json file, as JSON. */
export function readPolicyFile(path: string, text: string): unknown {
  try {
    if (path.toLowerCase().endsWith('.json')) return JSON.parse(text) as unknown;
    return parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true }) as unknown;
  } catch (error) {
    throw new CliInputError(
      `${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
}
