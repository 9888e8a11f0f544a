// Copies the Lua scripts next to the compiled JavaScript, which loads them at run time.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: copy-lua.mjs <from> <to>');
  process.exit(2);
}
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
for (const file of walk(from).filter((path) => path.endsWith('.lua'))) {
  cpSync(file, join(to, relative(from, file)));
}
