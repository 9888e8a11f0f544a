-- The write-back cache of string keys and the writes shared by the algorithm scripts: each
-- string key is read once and written once per call (flushStrings), and every write leaves its
-- key with a TTL. Not an algorithm: it sits in store/ beside operations.lua, which flushes it.

-- Redis formats numbers it receives with %.17g, but Lua's own tostring and .. keep only 14 digits.
local function int(n)
  return string.format('%d', n)
end

-- The time of the current call. When it came from Redis TIME, expiries are set as absolute
-- times (PEXPIREAT, PXAT), so a pause inside the call cannot stretch a key's life; an injected
-- test clock has nothing to do with Redis's, so then they are relative.
local callTime = { now = 0, fromRedis = false }

-- Gives key a TTL; with a value, sets it too (SET with the expiry, one command).
local function expireIn(key, ttl, value)
  if ttl <= 0 then
    redis.call('DEL', key)
  elseif value then
    if callTime.fromRedis then
      redis.call('SET', key, value, 'PXAT', int(ceilDiv(callTime.now + ttl, 1000)))
    else
      redis.call('SET', key, value, 'PX', int(ceilDiv(ttl, 1000)))
    end
  elseif callTime.fromRedis then
    redis.call('PEXPIREAT', key, int(ceilDiv(callTime.now + ttl, 1000)))
  else
    redis.call('PEXPIRE', key, int(ceilDiv(ttl, 1000)))
  end
end

-- Within one FCALL, each string key (a state but sliding-log's, or a penalty) is read from Redis
-- at most once and written at most once: the calls of an FCALL on the same identifier (one busy
-- address) see each other's writes here, and flushStrings() writes what the last of them left.
-- Redis does not expire keys while a script runs, so this reads what Redis would. `strings`
-- maps a key to its value, or to false when it has none; `unwritten` to its expiry, ms, which
-- `relative` says is a PX (a test clock's) rather than a PXAT.
local strings, unwritten, relative = {}, {}, {}
-- While set, store() writes at once instead: for keys no later call of the FCALL reads or writes
-- (consumeBatch's last write of each identifier), the cache would only cost a table and a pass.
local writeNow = false

local function beginStrings()
  strings, unwritten, relative, writeNow = {}, {}, {}, false
end

local function writeThrough(on)
  writeNow = on
end

-- The values of the keys (nil for none), read from Redis only for keys not seen yet.
local function readStrings(first, second)
  local a, b = strings[first], second and strings[second]
  if a == nil or (second and b == nil) then
    local values = second and redis.call('MGET', first, second) or { redis.call('GET', first) }
    if a == nil then
      a = values[1] or false
      strings[first] = a
    end
    if second and b == nil then
      b = values[2] or false
      strings[second] = b
    end
  end
  return a or nil, b or nil
end

-- Reads every key of `keys` not seen yet in MGETs of up to 200 keys: one command for a batch's
-- decisions costs this Lua a third of one per decision (docs/benchmarks.md).
local function prefetchStrings(keys)
  local wanted, n = {}, 0
  for _, key in ipairs(keys) do
    if strings[key] == nil then
      strings[key] = false
      n = n + 1
      wanted[n] = key
    end
  end
  for first = 1, n, 200 do
    local last = math.min(n, first + 199)
    local values = redis.call('MGET', unpack(wanted, first, last))
    for i = first, last do
      strings[wanted[i]] = values[i - first + 1] or false
    end
  end
end

-- Deleted at once, so a later in-place write of the same key (sliding-log) is never undone.
local function remove(key)
  redis.call('DEL', key)
  strings[key], unwritten[key] = false, nil
end

-- keepExpiry: the key already expires when this write would have it expire (fixed-window's
-- state in the window it was read in), so a write made now under Redis TIME keeps its TTL, a
-- cheaper SET than one that sets it again.
local function store(key, value, ttl, keepExpiry)
  if ttl <= 0 then
    remove(key)
  elseif writeNow and keepExpiry and callTime.fromRedis then
    redis.call('SET', key, value, 'KEEPTTL')
  elseif writeNow then
    expireIn(key, ttl, value)
  elseif callTime.fromRedis then
    strings[key], unwritten[key], relative[key] = value, ceilDiv(callTime.now + ttl, 1000), nil
  else
    strings[key], unwritten[key], relative[key] = value, ceilDiv(ttl, 1000), true
  end
end

-- The next FCALL starts afresh with beginStrings(), also after one that failed part-way.
local function flushStrings()
  for key, expiry in pairs(unwritten) do
    -- int(): Redis would format a Lua number with %.17g, a slower path than Lua's %d.
    redis.call('SET', key, strings[key], relative[key] and 'PX' or 'PXAT', int(expiry))
  end
end
