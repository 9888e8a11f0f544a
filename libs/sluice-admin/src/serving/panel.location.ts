import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built panel is: the package's `dist/panel` (the web build writes there), two folders
 * up from this module in dist/esm and dist/cjs, and from src/ when the admin runs from its
 * sources inside the repository.
 */
const CANDIDATES = ['../../panel/', '../../dist/panel/'];

export function builtPanelRoot(): string | undefined {
  return CANDIDATES.map((candidate) => fileURLToPath(new URL(candidate, import.meta.url))).find(
    (directory) => existsSync(join(directory, 'index.html')),
  );
}
