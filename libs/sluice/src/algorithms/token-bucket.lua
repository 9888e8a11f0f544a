-- token-bucket: whole tokens and the time they were counted at: "<tokens> <stamp>".
-- The stamp advances by whole intervals only, so partial progress towards the next token is kept.
local tokenBucket = {}

local function refill(state, now, p)
  if not state then
    return { tokens = p.burst, stamp = now }
  end
  local added = idiv(math.max(0, now - state.stamp), p.interval)
  local tokens = math.min(p.burst, state.tokens + added)
  if tokens == p.burst then
    return { tokens = tokens, stamp = now }
  end
  return { tokens = tokens, stamp = state.stamp + added * p.interval }
end

local function untilFull(bucket, now, p)
  if bucket.tokens >= p.burst then
    return 0
  end
  return (p.burst - bucket.tokens) * p.interval - (now - bucket.stamp)
end

function tokenBucket.decode(value)
  if not value then
    return nil
  end
  local tokens, stamp = string.match(value, '^(%d+) (%d+)$')
  return { tokens = tonumber(tokens), stamp = tonumber(stamp) }
end

function tokenBucket.decide(state, now, p, cost)
  local bucket = refill(state, now, p)
  if bucket.tokens >= cost then
    local nextState = { tokens = bucket.tokens - cost, stamp = bucket.stamp }
    local reset = untilFull(nextState, now, p)
    return {
      allowed = true,
      remaining = nextState.tokens,
      reset = reset,
      retry = 0,
      delay = 0,
      state = nextState,
      ttl = reset,
    }
  end
  local reset = untilFull(bucket, now, p)
  return {
    allowed = false,
    remaining = bucket.tokens,
    reset = reset,
    retry = (cost - bucket.tokens) * p.interval - (now - bucket.stamp),
    delay = 0,
    ttl = reset,
  }
end

function tokenBucket.refund(state, now, p, cost)
  if not state then
    return nil
  end
  local bucket = refill(state, now, p)
  local tokens = math.min(p.burst, bucket.tokens + cost)
  local nextState = { tokens = tokens, stamp = bucket.stamp }
  if tokens == p.burst then
    nextState.stamp = now
  end
  return nextState, untilFull(nextState, now, p)
end

function tokenBucket.write(key, state, ttl)
  store(key, string.format('%d %d', state.tokens, state.stamp), ttl)
end
