-- leaky-bucket (shaping): the time the queue has drained (drainAt); requests leave one interval apart.
local leakyBucket = {}

local function room(queued, p)
  if queued > p.maxDelay then
    return 0
  end
  return idiv(p.maxDelay - queued, p.interval) + 1
end

function leakyBucket.decode(value)
  return tonumber(value)
end

function leakyBucket.decide(drainAt, now, p, cost)
  local start = math.max(drainAt or now, now)
  local wait = start - now
  if wait <= p.maxDelay then
    local nextDrainAt = start + cost * p.interval
    return {
      allowed = true,
      remaining = room(nextDrainAt - now, p),
      reset = nextDrainAt - now,
      retry = 0,
      delay = wait,
      state = nextDrainAt,
      ttl = nextDrainAt - now,
    }
  end
  return {
    allowed = false,
    remaining = 0,
    reset = wait,
    retry = wait - p.maxDelay,
    delay = 0,
    ttl = wait,
  }
end

function leakyBucket.refund(drainAt, now, p, cost)
  if not drainAt then
    return nil
  end
  local nextDrainAt = math.max(now, drainAt - cost * p.interval)
  return nextDrainAt, nextDrainAt - now
end

function leakyBucket.write(key, drainAt, ttl)
  store(key, int(drainAt), ttl)
end

