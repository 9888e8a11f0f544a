import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built panel is: `dist/panel` beside this module once the package is built (the web
 * build writes there), also when the admin runs from its sources inside the repository.
 */
const CANDIDATES = ['../panel/', '../../dist/panel/'];

export function builtPanelRoot(): string | undefined {
  return CANDIDATES.map((candidate) => fileURLToPath(new URL(candidate, import.meta.url))).find(
    (directory) => existsSync(join(directory, 'index.html')),
  );
}
