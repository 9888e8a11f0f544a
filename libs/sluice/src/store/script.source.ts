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
  '../algorithms/concurrency.lua',
  '../penalty/penalty.lua',
  './spec.lua',
  './state.lua',
  './decide.lua',
  './charge.ops.lua',
  './quota.ops.lua',
  './key.ops.lua',
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
  /**
   * The same Lua as two EVAL scripts, for servers without functions: the definitions run on
   * every call, then operate or operateMany.
   */
  evalScripts: { one: EvalScript; many: EvalScript };
}

/** An EVAL script and its SHA1, as EVALSHA and SCRIPT LOAD know it. */
export interface EvalScript {
  source: string;
  sha: string;
}

function evalScript(source: string): EvalScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
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
  const evalScripts = {
    one: evalScript(`${definitions}\nreturn operate(KEYS, ARGV)\n`),
    many: evalScript(`${definitions}\nreturn operateMany(KEYS, ARGV)\n`),
  };
  return { definitions, name, manyName, functionSource, evalScripts };
}
