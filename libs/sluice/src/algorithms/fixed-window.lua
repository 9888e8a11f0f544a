-- fixed-window: the window index floor(now / period) and what it has admitted, in a hash {w, n}.
local fixedWindow = {}

function fixedWindow.read(key)
  local fields = redis.call('HMGET', key, 'w', 'n')
  if not fields[1] then
    return nil
  end
  return { window = tonumber(fields[1]), count = tonumber(fields[2]) }
end

function fixedWindow.decide(state, now, p, cost)
  local window = idiv(now, p.period)
  local count = 0
  if state then
    window = math.max(window, state.window)
    if state.window == window then
      count = state.count
    end
  end
  local reset = (window + 1) * p.period - now
  if count + cost <= p.limit then
    return {
      allowed = true,
      remaining = p.limit - count - cost,
      reset = reset,
      retry = 0,
      delay = 0,
      state = { window = window, count = count + cost },
      ttl = reset,
    }
  end
  return {
    allowed = false,
    remaining = math.max(0, p.limit - count),
    reset = reset,
    retry = reset,
    delay = 0,
    ttl = reset,
  }
end

function fixedWindow.refund(state, now, p, cost)
  if not state or state.window < idiv(now, p.period) then
    return nil
  end
  local count = math.max(0, state.count - cost)
  local ttl = 0
  if count > 0 then
    ttl = (state.window + 1) * p.period - now
  end
  return { window = state.window, count = count }, ttl
end

function fixedWindow.write(key, state, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
    return
  end
  redis.call('HSET', key, 'w', state.window, 'n', state.count)
  expireIn(key, ttl)
end
