-- Writes shared by the algorithm scripts. Every write leaves its key with a TTL.

-- Redis formats numbers it receives with %.17g, but Lua's own tostring and .. keep only 14 digits.
local function int(n)
  return string.format('%d', n)
end

-- The time of the current call. When it came from Redis TIME, expiries are set as absolute
-- times (PEXPIREAT, PXAT), so a pause inside the call cannot stretch a key's life; an injected
-- test clock has nothing to do with Redis's, so then they are relative.
local callTime = { now = 0, fromRedis = false }

local function expireIn(key, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
  elseif callTime.fromRedis then
    redis.call('PEXPIREAT', key, ceilDiv(callTime.now + ttl, 1000))
  else
    redis.call('PEXPIRE', key, ceilDiv(ttl, 1000))
  end
end

-- Every state but sliding-log's is one string, so one MGET reads a policy's state and penalty.
local function store(key, value, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
  elseif callTime.fromRedis then
    redis.call('SET', key, value, 'PXAT', ceilDiv(callTime.now + ttl, 1000))
  else
    redis.call('SET', key, value, 'PX', ceilDiv(ttl, 1000))
  end
end
