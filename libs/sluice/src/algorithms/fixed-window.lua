-- fixed-window: the window (its index floor(now / period), or for a calendar period its start in
-- µs) and what it has admitted: "<window> <count>".
local fixedWindow = {}

function fixedWindow.decode(value)
  if not value then
    return nil
  end
  local window, count = string.match(value, '^(%-?%d+) (%d+)$')
  return { window = tonumber(window), count = tonumber(count) }
end

-- The window now falls in and when it ends, µs: by period, or by the calendar's boundaries.
local function windowAt(now, p)
  local calendar = p.calendar
  if calendar then
    -- The caller's clock chose the boundaries; this clock (Redis's) says which side it is on.
    if now >= calendar.finish then
      return calendar.finish, calendar.next
    end
    return calendar.start, calendar.finish
  end
  local window = idiv(now, p.period)
  return window, (window + 1) * p.period
end

function fixedWindow.decide(state, now, p, cost)
  local window, finish = windowAt(now, p)
  local count = 0
  if state then
    -- A later window already counted (a clock that stepped back) is kept, by period only: a
    -- calendar window's end is known only for the boundaries given.
    if not p.calendar and state.window > window then
      window = state.window
      finish = (window + 1) * p.period
    end
    if state.window == window then
      count = state.count
    end
  end
  local reset = math.max(1, finish - now)
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
  local window, finish = windowAt(now, p)
  if not state or state.window < window then
    return nil
  end
  local count = math.max(0, state.count - cost)
  local ttl = 0
  if count > 0 then
    if p.calendar then
      ttl = finish - now
    else
      ttl = (state.window + 1) * p.period - now
    end
  end
  return { window = state.window, count = count }, ttl
end

function fixedWindow.write(key, state, ttl)
  store(key, string.format('%d %d', state.window, state.count), ttl)
end
