-- sliding-log: the times of admitted units in a sorted set. Entries at or before now - period are
-- out of the window; they are trimmed when the log is next written. The state is the key itself:
-- the log is queried in place rather than read whole.
local slidingLog = {}

local function newestScore(key)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  return tonumber(newest[2])
end

-- Decided on the sorted set in place: the state handed to decide and refund is the key.
slidingLog.inPlace = true

function slidingLog.decide(key, now, p, cost)
  local since = now - p.period
  local used = redis.call('ZCOUNT', key, '(' .. int(since), '+inf')
  local newest = nil
  if used > 0 then
    newest = newestScore(key)
  end
  if used + cost <= p.limit then
    if cost == 0 then
      local reset = 0
      if newest then
        reset = newest + p.period - now
      end
      return { allowed = true, remaining = p.limit - used, reset = reset, retry = 0, delay = 0, ttl = reset }
    end
    local reset = math.max(newest or now, now) + p.period - now
    return {
      allowed = true,
      remaining = p.limit - used - cost,
      reset = reset,
      retry = 0,
      delay = 0,
      state = { since = since, at = now, count = cost },
      ttl = reset,
    }
  end
  local mustLeave = redis.call('ZRANGEBYSCORE', key, '(' .. int(since), '+inf', 'WITHSCORES', 'LIMIT', used + cost - p.limit - 1, 1)
  local reset = newest + p.period - now
  return {
    allowed = false,
    remaining = math.max(0, p.limit - used),
    reset = reset,
    retry = tonumber(mustLeave[2]) + p.period - now,
    delay = 0,
    ttl = reset,
  }
end

function slidingLog.refund(key, now, p, cost)
  if redis.call('EXISTS', key) == 0 then
    return nil
  end
  redis.call('ZPOPMAX', key, cost)
  local newest = newestScore(key)
  if not newest then
    return key, 0
  end
  return key, newest + p.period - now
end

-- Members are "<time>:<n>", n one past the highest already used at that microsecond.
local function nextMemberIndex(key, at)
  local highest = -1
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', key, at, at)) do
    highest = math.max(highest, tonumber(string.match(member, ':(%d+)$')))
  end
  return highest + 1
end

function slidingLog.write(key, state, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
    return
  end
  if type(state) == 'table' then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', int(state.since))
    local first = nextMemberIndex(key, state.at)
    local entries = {}
    for i = 0, state.count - 1 do
      entries[#entries + 1] = state.at
      entries[#entries + 1] = int(state.at) .. ':' .. int(first + i)
    end
    redis.call('ZADD', key, unpack(entries))
  end
  expireIn(key, ttl)
end
