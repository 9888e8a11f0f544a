import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The Lua files that make up the one script, in the order their definitions are needed. */
const PARTS = [
  '../algorithms/integer-math.lua',
  '../algorithms/storage.lua',
  '../algorithms/rate-params.lua',
  '../algorithms/fixed-window.lua',
  '../algorithms/sliding-log.lua',
  '../algorithms/sliding-window.lua',
  '../algorithms/token-bucket.lua',
  '../algorithms/leaky-bucket.lua',
  '../algorithms/gcra.lua',
  '../penalty/penalty.lua',
  './operations.lua',
];

export interface LuaScript {
  source: string;
  sha: string;
}

export function loadOperationsScript(): LuaScript {
  const source = PARTS.map((part) => readFileSync(new URL(part, import.meta.url), 'utf8')).join(
    '\n',
  );
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}
