// The TypeScript blocks of README.md and docs/, as a reader copies them: each compiled as a module
// of its own against the packages' declarations. A name a block uses without importing it is
// imported from the entry that exports it (`@sluice/nest` first, then its other entries, then
// `@nestjs/common`), so its use is checked against the real types; any other is the reader's own
// (a controller, a service, `policies`) and declared as `any`. A block that cannot compile says
// why in the comment line `<!-- not compiled: … -->` right above it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Snippet {
  /** Where it is: `docs/guide.md:123`, the line of its opening fence. */
  where: string;
  code: string;
  /** Why it is not compiled, from the comment above it; undefined: it is. */
  notCompiled?: string;
}

const FENCE = /^```(ts|typescript)\s*$/;
const NOT_COMPILED = /^<!-- not compiled: (.+) -->$/;

/** Every ```ts block of the files named, with what the line above it says. */
export function snippetsOf(root: string, files: string[]): Snippet[] {
  const snippets: Snippet[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!FENCE.test(lines[i] ?? '')) continue;
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
      const above = lines
        .slice(0, start)
        .reverse()
        .find((line) => line.trim() !== '');
      const reason = NOT_COMPILED.exec(above ?? '')?.[1];
      snippets.push({
        where: `${file}:${start + 1}`,
        code: body.join('\n'),
        ...(reason === undefined ? {} : { notCompiled: reason }),
      });
    }
  }
  return snippets;
}

/** Diagnostics that say a name is not in scope: imported or declared, then compiled again. */
const NOT_IN_SCOPE = new Set([2304, 2552, 2582, 18004]);

/** Where a name a block leaves unimported is looked for, in this order. */
const ENTRIES = [
  '@sluice/nest',
  '@sluice/nest/engine',
  '@sluice/nest/throttler',
  '@sluice/admin',
  '@nestjs/common',
];

/** Each name the entries export, with the first entry that does. */
function exportedNames(directory: string, options: ts.CompilerOptions): Map<string, string> {
  const probe = join(directory, 'entries.ts');
  writeFileSync(
    probe,
    ENTRIES.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n') +
      `\nexport { ${ENTRIES.map((_, index) => `entry${index}`).join(', ')} };\n`,
  );
  const program = ts.createProgram([probe], options);
  const checker = program.getTypeChecker();
  const names = new Map<string, string>();
  const source = program.getSourceFile(probe)!;
  source.statements.filter(ts.isImportDeclaration).forEach((statement, index) => {
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (symbol === undefined)
      throw new Error(`${ENTRIES[index]} does not resolve from ${directory}`);
    for (const exported of checker.getExportsOfModule(symbol)) {
      if (!names.has(exported.name)) names.set(exported.name, ENTRIES[index]!);
    }
  });
  rmSync(probe);
  return names;
}

/**
 * Compiles each snippet in `directory` (whose node_modules, or an ancestor's, holds the packages)
 * and answers each one's errors, empty when it compiles.
 */
export function compileSnippets(directory: string, snippets: Snippet[]): Map<string, string[]> {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  const files = snippets.map((_, index) => join(directory, `snippet-${index}.ts`));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const exported = exportedNames(directory, options);
  const declared = snippets.map(() => new Set<string>());
  let errors = new Map<string, string[]>();
  for (let pass = 0; pass < 3; pass++) {
    snippets.forEach((snippet, index) => {
      const imports: string[] = [];
      const stubs: string[] = [];
      for (const name of declared[index] ?? []) {
        const entry = exported.get(name);
        if (entry !== undefined) imports.push(`import { ${name} } from '${entry}';`);
        else stubs.push(`declare const ${name}: any; type ${name} = any;`);
      }
      // The imports go last too: an import declaration is hoisted, and the block's own lines keep
      // their numbers in the errors.
      writeFileSync(
        files[index]!,
        `${snippet.code}\n${imports.join('\n')}\n${stubs.join('\n')}\nexport {};\n`,
      );
    });
    const program = ts.createProgram(files, options);
    errors = new Map();
    let added = false;
    snippets.forEach((snippet, index) => {
      const source = program.getSourceFile(files[index]!)!;
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      const messages: string[] = [];
      for (const diagnostic of diagnostics) {
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        const name = /^Cannot find name '([^']+)'/.exec(text)?.[1];
        if (NOT_IN_SCOPE.has(diagnostic.code) && name !== undefined) {
          if (!declared[index]!.has(name)) added = true;
          declared[index]!.add(name);
          continue;
        }
        const line =
          diagnostic.start === undefined
            ? 0
            : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
        messages.push(`line ${line} of the block: ${text}`);
      }
      errors.set(snippet.where, messages);
    });
    if (!added) break;
  }
  return errors;
}

/** README.md and every file of docs/, as paths from the repository's root. */
export function documentationFiles(root: string, docs: string[]): string[] {
  return ['README.md', ...docs.map((file) => relative(root, file))];
}
