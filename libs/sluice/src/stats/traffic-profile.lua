-- The traffic profile in Redis, the twin of traffic-profile.ts (the same names): an instance's
-- counts per identifier and window added up, a window sampled when it holds too many
-- identifiers, and a closed window folded into its hour's histogram (docs/algorithms.md,
-- "Traffic profiles"). One call per policy and window length; every key shares KEYS[1]'s hash tag.
--
-- KEYS[1]  <prefix>:{prof:<policy>}
-- ARGV     now (ms), window length (ms), most identifiers a window keeps, hours kept (ms),
--          then per count: window, field, count
-- Returns  the level new windows are sampled at.

local EXACT_BELOW = 32
local STEPS = 16
local FOLD_AFTER_MS = 5000
local TOP_PER_HOUR = 20
local HOUR_MS = 3600000
-- A level is lowered only this long after it last changed: every instance has heard of it.
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

local function hourOf(window, windowMs)
  return math.floor(((window + 1) * windowMs - 1) / HOUR_MS)
end

local function lastFoldable(now, windowMs)
  return math.floor((now - FOLD_AFTER_MS) / windowMs) - 1
end

-- Folds one closed window into its hour: each identifier's count in its bucket, weighted by
-- the sample, the requests, the windows, the largest count; its busiest into the hour's top.
local function foldWindow(base, windowMs, window, keepMs)
  local key = base .. ':w:' .. windowMs .. ':' .. window
  local flat = redis.call('HGETALL', key)
  local level = 0
  local hour = hourOf(window, windowMs)
  local hist = base .. ':h:' .. windowMs .. ':' .. hour
  local top = base .. ':t:' .. windowMs .. ':' .. hour
  for i = 1, #flat, 2 do
    if flat[i] == LEVEL then
      level = tonumber(flat[i + 1])
    end
  end
  local weight = 2 ^ level
  local sums, largest, tiers, busiest = {}, {}, {}, {}
  local identifiers = 0
  for i = 1, #flat, 2 do
    local field = flat[i]
    if field ~= LEVEL then
      local count = tonumber(flat[i + 1])
      local tierEnd = string.find(field, ':', 10, true)
      if count > 0 and string.sub(field, 9, 9) == ':' and tierEnd then
        local tier = string.sub(field, 10, tierEnd - 1)
        local member = tier .. ':' .. string.sub(field, tierEnd + 1)
        identifiers = identifiers + 1
        tiers[tier] = true
        local bucket = tier .. ':b' .. bucketOf(count)
        sums[bucket] = (sums[bucket] or 0) + weight
        sums[tier .. ':r'] = (sums[tier .. ':r'] or 0) + count * weight
        if count > (largest[tier] or 0) then
          largest[tier] = count
        end
        busiest[#busiest + 1] = { count, member }
      end
    end
  end
  for tier in pairs(tiers) do
    sums[tier .. ':w'] = 1
  end
  if identifiers > 0 then
    sums['w'] = 1
  end
  for field, amount in pairs(sums) do
    redis.call('HINCRBY', hist, field, amount)
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
    table.sort(busiest, function(a, b)
      return a[1] > b[1] or (a[1] == b[1] and a[2] < b[2])
    end)
    for i = 1, math.min(#busiest, TOP_PER_HOUR) do
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
  local now, windowMs = tonumber(ARGV[1]), tonumber(ARGV[2])
  local bound, keepMs = tonumber(ARGV[3]), tonumber(ARGV[4])
  local meta = base .. ':m'
  local open = base .. ':o:' .. windowMs
  local folded = tonumber(redis.call('HGET', meta, 'f:' .. windowMs) or '-1')
  local level = tonumber(redis.call('HGET', meta, 'l:' .. windowMs) or '0')
  local changed = tonumber(redis.call('HGET', meta, 'c:' .. windowMs) or '0')
  local levels, late = {}, 0
  for i = 5, #ARGV, 3 do
    local window, field, count = tonumber(ARGV[i]), ARGV[i + 1], tonumber(ARGV[i + 2])
    if window <= folded then
      late = late + count
    else
      local key = base .. ':w:' .. windowMs .. ':' .. window
      local at = levels[window]
      if not at then
        at = tonumber(redis.call('HGET', key, LEVEL) or '-1')
        if at < 0 then
          at = level
          redis.call('HSET', key, LEVEL, at)
          redis.call('ZADD', open, window, window)
          -- Kept until it folds, and past it should no call come to fold it.
          redis.call('PEXPIRE', key, (window + 1) * windowMs - now + keepMs)
        end
        levels[window] = at
      end
      if sampledAt(hashOf(field), at) then
        redis.call('HINCRBY', key, field, count)
      end
    end
  end
  -- A window with too many identifiers keeps half of them, again until it fits; windows opened
  -- from now on start at its level.
  for window, at in pairs(levels) do
    local key = base .. ':w:' .. windowMs .. ':' .. window
    while redis.call('HLEN', key) - 1 > bound do
      at = at + 1
      resample(key, at)
    end
    if at > level then
      level, changed = at, now
    end
  end
  local last = lastFoldable(now, windowMs)
  for _, window in ipairs(redis.call('ZRANGEBYSCORE', open, '-inf', last)) do
    local identifiers = foldWindow(base, windowMs, tonumber(window), keepMs)
    redis.call('ZREM', open, window)
    folded = math.max(folded, tonumber(window))
    -- A light window lowers the level by one, for windows opened from now on.
    if level > 0 and identifiers * 4 < bound and now - changed >= LOWER_AFTER_MS then
      level, changed = level - 1, now
    end
  end
  redis.call('HSET', meta, 'f:' .. windowMs, folded, 'l:' .. windowMs, level, 'c:' .. windowMs, changed)
  if late > 0 then
    redis.call('HINCRBY', meta, 'late:' .. windowMs, late)
  end
  redis.call('PEXPIRE', meta, keepMs)
  redis.call('PEXPIRE', open, keepMs)
  return level
end

return record(KEYS, ARGV)
