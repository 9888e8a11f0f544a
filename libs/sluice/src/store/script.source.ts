import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The Lua files that make up the library, in the order their definitions are needed. */
const PARTS = [
  '../algorithms/integer-math.lua',
  './write-back.lua',
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

export interface LuaLibrary {
  /** Every definition, ending with the local functions operate and operateMany. */
  definitions: string;
  /** Library and function name: changes whenever the Lua changes, so versions coexist. */
  name: string;
  /** The function that runs several calls in one FCALL (operateMany). */
  manyName: string;
  /** The Redis function library: the definitions run once at FUNCTION LOAD. */
  functionSource: string;
}

export function loadLuaLibrary(): LuaLibrary {
  const definitions = PARTS.map((part) =>
    readFileSync(new URL(part, import.meta.url), 'utf8'),
  ).join('\n');
  const name = `sluice_${createHash('sha1').update(definitions).digest('hex').slice(0, 12)}`;
  const manyName = `${name}_many`;
  const functionSource =
    `#!lua name=${name}\n${definitions}\n` +
    `redis.register_function('${name}', operate)\n` +
    `redis.register_function('${manyName}', operateMany)\n`;
  return { definitions, name, manyName, functionSource };
}
