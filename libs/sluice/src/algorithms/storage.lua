-- Writes shared by the algorithm scripts. Every write leaves its key with a TTL.

-- Redis formats numbers it receives with %.17g, but Lua's own tostring and .. keep only 14 digits.
local function int(n)
  return string.format('%d', n)
end

local function expireIn(key, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
  else
    redis.call('PEXPIRE', key, ceilDiv(ttl, 1000))
  end
end

local function setNumber(key, value, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, value, 'PX', ceilDiv(ttl, 1000))
  end
end
