-- fixed-window: the window index floor(now / period) and what it has admitted: "<window> <count>".
local fixedWindow = {}

function fixedWindow.decode(value)
  if not value then
    return nil
  end
  local window, count = string.match(value, '^(%-?%d+) (%d+)$')
  return { window = tonumber(window), count = tonumber(count) }
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
  store(key, string.format('%d %d', state.window, state.count), ttl)
end
