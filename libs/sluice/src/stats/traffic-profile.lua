-- The traffic profile in Redis, the twin of traffic-profile.ts (the same names): an instance's
-- counts per identifier and window added up, a window sampled when it holds too many
-- identifiers, and a closed window folded into its hour's histogram (docs/algorithms.md,
-- "Traffic profiles"). One call per policy and window length; every key shares KEYS[1]'s hash tag.
--
-- KEYS[1]  <prefix>:{prof:<policy>}
-- ARGV     now (ms), the windows' key (a length in ms, or a calendar's key: its windows are
--          named by their end, epoch ms), most identifiers a window keeps, hours kept (ms), the
--          window holding now, the first a lower level announced now applies to, the last
--          window that may fold, then per count: window, field, count (traffic-profile.ts
--          computes the windows, as a calendar's periods need time zones Lua does not have)
-- Returns  the level windows opening now are sampled at, and a lower level announced with the
--          first window it applies to (-1, -1: none).

local EXACT_BELOW = 32
local STEPS = 16
local TOP_PER_HOUR = 20
local HOUR_MS = 3600000
-- A level is lowered only this long after it last changed, and for windows that open 2 s after it
-- is announced (the window ARGV[6] names): every instance has heard of it by then.
local LOWER_AFTER_MS = 10000
local LEVEL = '\0l'

local function bucketOf(count)
  if count < EXACT_BELOW then
    return count
  end
  local power = 5
  while count >= 2 ^ (power + 1) do
    power = power + 1
  end
  return EXACT_BELOW + (power - 5) * STEPS + math.floor((count - 2 ^ power) / 2 ^ (power - 4))
end

local function sampledAt(hash, level)
  return hash % 2 ^ level == 0
end

local function hashOf(field)
  return tonumber(string.sub(field, 1, 8), 16)
end

-- When a window ends: windows of a fixed length are numbered from the epoch, a calendar's
-- periods named by their end (windowMs nil).
local function windowEnd(window, windowMs)
  return windowMs and (window + 1) * windowMs or window
end

local function hourOf(window, windowMs)
  return math.floor((windowEnd(window, windowMs) - 1) / HOUR_MS)
end

-- Folds one closed window into its hour: each identifier's count in its bucket, weighted by
-- the sample, the requests, the windows, the largest count; its busiest into the hour's top.
local function foldWindow(base, windowKey, windowMs, window, keepMs)
  local key = base .. ':w:' .. windowKey .. ':' .. window
  local flat = redis.call('HGETALL', key)
  local level = 0
  local hour = hourOf(window, windowMs)
  local hist = base .. ':h:' .. windowKey .. ':' .. hour
  local top = base .. ':t:' .. windowKey .. ':' .. hour
  for i = 1, #flat, 2 do
    if flat[i] == LEVEL then
      level = tonumber(flat[i + 1])
    end
  end
  local weight = 2 ^ level
  -- Per tier: identifiers by bucket, requests, the largest count; field names are made once
  -- per tier and bucket at the end, not per identifier.
  local byBucket, requests, largest = {}, {}, {}
  -- The window's busiest, most first (and among equals the first member in byte order): at most
  -- TOP_PER_HOUR, kept in order as fields come, so no sort of every field.
  local busiest, floor = {}, 0
  local identifiers = 0
  for i = 1, #flat, 2 do
    local field = flat[i]
    if field ~= LEVEL then
      local count = tonumber(flat[i + 1])
      local tierEnd = string.find(field, ':', 10, true)
      if count > 0 and string.byte(field, 9) == 58 and tierEnd then
        local tier = tierEnd == 10 and '' or string.sub(field, 10, tierEnd - 1)
        identifiers = identifiers + 1
        local buckets = byBucket[tier]
        if not buckets then
          buckets = {}
          byBucket[tier], requests[tier], largest[tier] = buckets, 0, 0
        end
        local bucket = count < EXACT_BELOW and count or bucketOf(count)
        buckets[bucket] = (buckets[bucket] or 0) + weight
        requests[tier] = requests[tier] + count
        if count > largest[tier] then
          largest[tier] = count
        end
        if count >= floor or #busiest < TOP_PER_HOUR then
          local member = tier .. ':' .. string.sub(field, tierEnd + 1)
          local at = #busiest + 1
          while at > 1 and (busiest[at - 1][1] < count or (busiest[at - 1][1] == count and busiest[at - 1][2] > member)) do
            at = at - 1
          end
          if at <= TOP_PER_HOUR then
            table.insert(busiest, at, { count, member })
            busiest[TOP_PER_HOUR + 1] = nil
            floor = #busiest < TOP_PER_HOUR and 0 or busiest[#busiest][1]
          end
        end
      end
    end
  end
  for tier, buckets in pairs(byBucket) do
    for bucket, amount in pairs(buckets) do
      redis.call('HINCRBY', hist, tier .. ':b' .. bucket, amount)
    end
    redis.call('HINCRBY', hist, tier .. ':r', requests[tier] * weight)
    redis.call('HINCRBY', hist, tier .. ':w', 1)
  end
  if identifiers > 0 then
    redis.call('HINCRBY', hist, 'w', 1)
  end
  for tier, count in pairs(largest) do
    local field = tier .. ':x'
    local known = tonumber(redis.call('HGET', hist, field) or '0')
    if count > known then
      redis.call('HSET', hist, field, count)
    end
  end
  if identifiers > 0 then
    redis.call('PEXPIRE', hist, keepMs)
    -- Only the window's busiest can enter the hour's top.
    for i = 1, #busiest do
      redis.call('ZADD', top, 'GT', busiest[i][1], busiest[i][2])
    end
    redis.call('ZREMRANGEBYRANK', top, 0, -(TOP_PER_HOUR + 1))
    redis.call('PEXPIRE', top, keepMs)
  end
  redis.call('DEL', key)
  return identifiers
end

-- Keeps one window in 2^level identifiers, by hash.
local function resample(key, level)
  local fields = redis.call('HKEYS', key)
  local dropped = {}
  for _, field in ipairs(fields) do
    if field ~= LEVEL and not sampledAt(hashOf(field), level) then
      dropped[#dropped + 1] = field
      if #dropped == 500 then
        redis.call('HDEL', key, unpack(dropped))
        dropped = {}
      end
    end
  end
  if #dropped > 0 then
    redis.call('HDEL', key, unpack(dropped))
  end
  redis.call('HSET', key, LEVEL, level)
end

local function record(KEYS, ARGV)
  local base = KEYS[1]
  local now, windowKey = tonumber(ARGV[1]), ARGV[2]
  local windowMs = tonumber(windowKey)
  local bound, keepMs = tonumber(ARGV[3]), tonumber(ARGV[4])
  local current, noticed, last = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local meta = base .. ':m'
  local open = base .. ':o:' .. windowKey
  local state = redis.call('HMGET', meta, 'f:' .. windowKey, 'l:' .. windowKey, 'c:' .. windowKey,
    'n:' .. windowKey, 'nf:' .. windowKey)
  local folded = tonumber(state[1] or '-1')
  local level = tonumber(state[2] or '0')
  local changed = tonumber(state[3] or '0')
  -- A lower level announced for the windows from `nextFrom` on (-1: none).
  local nextLevel, nextFrom = tonumber(state[4] or '-1'), tonumber(state[5] or '-1')
  if nextFrom >= 0 and current >= nextFrom then
    level, nextLevel, nextFrom = nextLevel, -1, -1
  end
  local levels, keys, late = {}, {}, 0
  for i = 8, #ARGV, 3 do
    local window, field, count = tonumber(ARGV[i]), ARGV[i + 1], tonumber(ARGV[i + 2])
    if window <= folded then
      late = late + count
    else
      local key = keys[window]
      local at = levels[window]
      if not at then
        key = base .. ':w:' .. windowKey .. ':' .. window
        keys[window] = key
        at = tonumber(redis.call('HGET', key, LEVEL) or '-1')
        if at < 0 then
          at = (nextFrom >= 0 and window >= nextFrom) and nextLevel or level
          redis.call('HSET', key, LEVEL, at)
          redis.call('ZADD', open, window, window)
          -- Kept until it folds, and past it should no call come to fold it.
          redis.call('PEXPIRE', key, windowEnd(window, windowMs) - now + keepMs)
        end
        levels[window] = at
      end
      if at == 0 or sampledAt(hashOf(field), at) then
        redis.call('HINCRBY', key, field, count)
      end
    end
  end
  -- A window with too many identifiers keeps half of them, again until it fits; windows opened
  -- from now on start at its level, and a lower level announced is called off.
  for window, at in pairs(levels) do
    local key = keys[window]
    while redis.call('HLEN', key) - 1 > bound do
      at = at + 1
      resample(key, at)
    end
    if at > level then
      level, changed, nextLevel, nextFrom = at, now, -1, -1
    end
  end
  for _, window in ipairs(redis.call('ZRANGEBYSCORE', open, '-inf', last)) do
    local identifiers = foldWindow(base, windowKey, windowMs, tonumber(window), keepMs)
    redis.call('ZREM', open, window)
    folded = math.max(folded, tonumber(window))
    -- A light window lowers the level by one, announced for windows that open once every
    -- instance has heard of it, so none leaves out an identifier such a window keeps.
    if level > 0 and nextFrom < 0 and identifiers * 4 < bound and now - changed >= LOWER_AFTER_MS then
      nextLevel, nextFrom, changed = level - 1, noticed, now
    end
  end
  redis.call('HSET', meta, 'f:' .. windowKey, folded, 'l:' .. windowKey, level, 'c:' .. windowKey,
    changed, 'n:' .. windowKey, nextLevel, 'nf:' .. windowKey, nextFrom)
  if late > 0 then
    redis.call('HINCRBY', meta, 'late:' .. windowKey, late)
  end
  redis.call('PEXPIRE', meta, keepMs)
  redis.call('PEXPIRE', open, keepMs)
  return { level, nextLevel, nextFrom }
end

return record(KEYS, ARGV)
