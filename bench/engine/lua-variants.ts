/**
 * Copies of the engine's Lua with parts cut away, to attribute its server time. They are built
 * here from the library's own definitions at run time and loaded under their own names; libs/ is
 * never changed. A cut whose anchor text is gone (the library changed) is reported as skipped.
 */

/** The baseline the targets are judged against: one counter with a TTL. ARGV[1] = TTL in ms. */
export const PLAIN_SCRIPT =
  "redis.call('INCR', KEYS[1])\nredis.call('PEXPIRE', KEYS[1], ARGV[1])\nreturn 1";

/**
 * The reference floor of issue 38: what any limiter keeping one string state per identifier must
 * do, a GET and a SET with expiry, in one script per decision. ARGV[1] = the value, ARGV[2] = TTL ms.
 */
export const FLOOR_SCRIPT =
  "redis.call('GET', KEYS[1])\nredis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\nreturn 1";

export interface Variant {
  name: string;
  /** What the figure measures. */
  what: string;
  /** `script`: EVALSHA of source; `function`: FUNCTION LOAD of source, FCALL of `call`. */
  kind: 'script' | 'function';
  source?: string;
  /** The function to FCALL. */
  call?: string;
  /** Why it could not be built. */
  skipped?: string;
}

const libraryName = (variant: string) => `sluicebench_${variant.replace(/[^A-Za-z0-9]/g, '_')}`;

/** A one-function library whose body sees KEYS and ARGV as a script would. */
export function functionOf(variant: string, what: string, body: string): Variant {
  const name = libraryName(variant);
  return {
    name: variant,
    what,
    kind: 'function',
    call: name,
    source: `#!lua name=${name}\nredis.register_function('${name}', function(KEYS, ARGV)\n${body}\nend)\n`,
  };
}

/**
 * The engine's definitions (ending with `local function operate(KEYS, ARGV)`) as their own
 * library, with `anchor` replaced by `replacement` (inserted before it when `before`).
 */
function libraryCut(
  definitions: string,
  variant: string,
  what: string,
  anchor: string,
  edit: (anchor: string) => string,
): Variant {
  if (definitions.split(anchor).length !== 2) {
    return {
      name: variant,
      what,
      kind: 'function',
      skipped: `anchor ${JSON.stringify(anchor)} not found once in the Lua`,
    };
  }
  const name = libraryName(variant);
  return {
    name: variant,
    what,
    kind: 'function',
    call: name,
    source: `#!lua name=${name}\n${definitions.replace(anchor, edit(anchor))}\nredis.register_function('${name}', operate)\n`,
  };
}

const CONSUME = '\n  local reply = perform(KEYS[1], ARGV[1], now, ARGV[3], specs)\n';
const CONSUME_EVALUATED =
  'local verdict = algorithm.decide(algorithm.decode(stateValue), now, spec.rate, spec.cost, lease)\n';
const CONSUME_REPLY = 'return admittedReply(verdict, admitted, allowed, reason)';
/** consumeOne's read (readBoth makes the same call, followed by other lines). */
const PENALTY_READ = 'readStrings(penaltyKey(base, spec), key)\n  if penaltyValue then';
const SPEC_CACHE = 'local spec = specOf(ARGV[i])';

/** Variants that do not depend on the algorithm (called with gcra's arguments). */
export function commonVariants(definitions: string): Variant[] {
  return [
    {
      name: 'plain',
      what: 'the plain script (INCR + PEXPIRE), the baseline of the targets',
      kind: 'script',
      source: PLAIN_SCRIPT,
    },
    functionOf(
      'plain-fcall',
      'the same INCR + PEXPIRE as a function, a like-for-like baseline for FCALL',
      PLAIN_SCRIPT,
    ),
    functionOf(
      'return-1',
      "a function that only returns 1, called with the engine's KEYS/ARGV: FCALL dispatch, argument passing and socket I/O",
      'return 1',
    ),
    functionOf(
      'ten-calls',
      "10 × `redis.call('EXISTS', KEYS[1])`, then 1: (this − `return-1`) ÷ 10 is what one redis.call() of a trivial keyed command costs, the Lua-to-Redis bridge included",
      "for _ = 1, 10 do\n  redis.call('EXISTS', KEYS[1])\nend\nreturn 1",
    ),
    functionOf(
      'time',
      "`redis.call('TIME')`, then 1: (this − `return-1`) is what reading Redis TIME costs",
      "redis.call('TIME')\nreturn 1",
    ),
    functionOf(
      'floor-gcra',
      'TIME, GET, `SET … PX` of a constant, then 1: the Redis work one GCRA decision cannot avoid, with no arithmetic and no reply',
      "redis.call('TIME')\nredis.call('GET', KEYS[1])\nredis.call('SET', KEYS[1], '1763790000123456', 'PX', 60000)\nreturn 1",
    ),
    libraryCut(
      definitions,
      'parsed',
      "the engine's library returning 1 right after TIME and the spec lookup (`specOf`, cached parse), before any key is read",
      CONSUME,
      (anchor) => `\n  do return 1 end${anchor}`,
    ),
  ];
}

/** Variants measured once per algorithm (the spec decides which branch runs). */
export function algorithmVariants(definitions: string): Variant[] {
  return [
    libraryCut(
      definitions,
      'evaluated',
      "… and the decision of the usual consume (`consumeOne`): the penalty and state read (one MGET) and the algorithm's decide, then 1",
      CONSUME_EVALUATED,
      (anchor) => `${anchor}  do return 1 end\n`,
    ),
    libraryCut(
      definitions,
      'written',
      '… and the state write (and TTL), then 1 instead of the reply',
      CONSUME_REPLY,
      () => 'return 1',
    ),
    libraryCut(
      definitions,
      'no-penalty-read',
      'the whole library reading only the state (GET) instead of penalty and state (MGET): what skipping the penalty for a policy without one would save',
      PENALTY_READ,
      () => 'nil, readStrings(key)\n  if penaltyValue then',
    ),
    libraryCut(
      definitions,
      'no-spec-cache',
      'the whole library parsing every spec on every call (`parseSpec`, no `specOf` cache)',
      SPEC_CACHE,
      () => 'local spec = parseSpec(ARGV[i])',
    ),
    {
      name: 'eval-style',
      what: 'the same definitions as one EVALSHA script (`… return operate(KEYS, ARGV)`): every function and table re-created on each call, as before the library became a function library',
      kind: 'script',
      source: `${definitions}\nreturn operate(KEYS, ARGV)\n`,
    },
  ];
}

/**
 * A hand-written GCRA with the engine's semantics for one policy without penalty (TIME, GET, SET
 * PX), taking its rate pre-computed: what a lean single-purpose function costs.
 * ARGV: interval µs, burst window µs (burst·interval), cost.
 */
export const LEAN_GCRA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, window, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local start = math.max(tat, now)
local nextTat = start + cost * interval
if nextTat - now <= window then
  redis.call('SET', KEYS[1], string.format('%d', nextTat), 'PX', math.ceil((nextTat - now) / 1000))
  return { 1, math.floor((window - (nextTat - now)) / interval), nextTat - now, 0 }
end
return { 0, math.max(0, math.floor((window - (start - now)) / interval)), start - now, nextTat - window - now }`;

/**
 * A hand-written fixed window on the engine's data model (a string "<window> <count>", expiring
 * at the window's end), for one policy without penalty. ARGV: period µs, limit, cost.
 */
export const LEAN_FIXED_WINDOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local period, limit, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local window = math.floor(now / period)
local stored, n = string.match(redis.call('GET', KEYS[1]) or '', '^(%d+) (%d+)$')
local count = 0
if tonumber(stored) == window then count = tonumber(n) end
local reset = (window + 1) * period - now
if count + cost <= limit then
  redis.call('SET', KEYS[1], string.format('%d %d', window, count + cost), 'PXAT', math.ceil((now + reset) / 1000))
  return { 1, limit - count - cost, reset, 0 }
end
return { 0, math.max(0, limit - count), reset, reset }`;

export function leanVariants(): Variant[] {
  return [
    functionOf(
      'lean-gcra',
      'a hand-written GCRA function for one policy without penalty (TIME, GET, SET PX), rate pre-computed',
      LEAN_GCRA,
    ),
    functionOf(
      'lean-fixed-window',
      "a hand-written fixed-window function on the engine's string model (TIME, GET, SET PXAT)",
      LEAN_FIXED_WINDOW,
    ),
  ];
}
