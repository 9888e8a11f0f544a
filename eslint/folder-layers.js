// Folders import only downward: the layers of each library, top first, as docs/architecture.md
// draws them, and the lint rule that holds every file to them. A folder may import its own files
// and any folder in a lower layer; folders in one layer do not import each other. Files at a
// library's root are its entries (index, module): they import folders, never the reverse.
import { dirname, relative, resolve, sep } from 'node:path';

export const LIBRARY_LAYERS = {
  'libs/sluice/src': [
    ['testing'],
    ['nest'],
    ['request'],
    ['metrics', 'throttler', 'simulator'],
    ['bus', 'events', 'stats', 'connection', 'metadata', 'http'],
    ['config'],
    ['trackers', 'engine'],
    ['store', 'lists'],
    ['policy'],
    ['penalty', 'algorithms'],
    ['keys', 'peers', 'clock', 'collections', 'logging', 'net'],
  ],
  'libs/sluice-admin/src': [
    ['cli'],
    ['live', 'docs', 'serving'],
    ['instances', 'identifiers', 'profiles', 'lists', 'quotas', 'plans', 'policy-file'],
    ['audit', 'penalties', 'policies'],
    ['auth'],
    ['database'],
    ['config'],
    ['common'],
  ],
  // The panel: screens by page, the shell above them, shared parts and data hooks below, and the
  // typed API client at the bottom; test helpers sit above what they render.
  'web/src': [['app'], ['pages'], ['testing'], ['shared'], ['api']],
};

/** The folder a path is in, directly under the library's root; undefined for the root's own files. */
function folderOf(root, path) {
  const parts = relative(root, path).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

const folderLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'Folders of a library import only folders in lower layers' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, layers: { type: 'array' } },
        required: ['root', 'layers'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root: rootOption, layers } = context.options[0];
    const root = resolve(context.cwd, rootOption);
    const file = context.filename;
    const from = folderOf(root, file);
    // Entries and tests stand outside the layers: entries gather folders, tests may use fixtures.
    if (from === undefined || /\.(spec|test)\.tsx?$/.test(file)) return {};
    const layerOf = new Map(layers.flatMap((folders, index) => folders.map((f) => [f, index])));
    const fromLayer = layerOf.get(from);

    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      if (fromLayer === undefined) {
        context.report({
          node,
          message: `Folder '${from}/' has no layer: add it to eslint/folder-layers.js and docs/architecture.md.`,
        });
        return;
      }
      const target = resolve(dirname(file), source);
      if (!target.startsWith(root + sep)) {
        context.report({
          node,
          message: `'${source}' leaves the library; import packages by name.`,
        });
        return;
      }
      const to = folderOf(root, target);
      if (to === from) return;
      if (to === undefined) {
        context.report({
          node,
          message: `'${source}' is an entry of the library; entries import folders, not the reverse.`,
        });
        return;
      }
      const toLayer = layerOf.get(to);
      if (toLayer === undefined || toLayer <= fromLayer) {
        context.report({
          node,
          message: `'${from}/' may not import '${to}/': folders import only lower layers (docs/architecture.md).`,
        });
      }
    }

    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export const folderLayersPlugin = { rules: { 'folder-layers': folderLayers } };

/** One ESLint config block per library, applying the rule with that library's layers. */
export function folderLayersConfig() {
  return Object.entries(LIBRARY_LAYERS).map(([root, layers]) => ({
    files: [`${root}/**/*.{ts,tsx}`],
    plugins: { sluice: folderLayersPlugin },
    rules: { 'sluice/folder-layers': ['error', { root, layers }] },
  }));
}
