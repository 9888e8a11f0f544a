-- sliding-window: `segments` counters, one per segment of period / segments µs, kept in slot
-- (segment mod segments), and the newest segment written, which tells each slot's age:
-- "<latest> <slot>:<count> …" (slots with a count only).
local slidingWindow = {}

local function openWindow(state, now, p)
  local window = { current = idiv(now, p.segment), bySegment = {}, used = 0, newest = nil }
  if not state then
    return window
  end
  window.current = math.max(window.current, state.latest)
  for slot, count in pairs(state.counts) do
    local segment = state.latest - imod(state.latest - slot, p.segments)
    if count > 0 and segment > window.current - p.segments then
      window.bySegment[segment] = count
      window.used = window.used + count
      window.newest = math.max(window.newest or segment, segment)
    end
  end
  return window
end

local function closeWindow(window, now, p)
  local counts = {}
  local newest = nil
  for segment, count in pairs(window.bySegment) do
    if count > 0 then
      counts[imod(segment, p.segments)] = count
      newest = math.max(newest or segment, segment)
    end
  end
  local ttl = 0
  if newest then
    ttl = (newest + p.segments) * p.segment - now
  end
  return { latest = window.current, counts = counts }, ttl
end

function slidingWindow.decode(value)
  if not value then
    return nil
  end
  local state = { latest = tonumber(string.match(value, '^(%-?%d+)')), counts = {} }
  for slot, count in string.gmatch(value, ' (%d+):(%d+)') do
    state.counts[tonumber(slot)] = tonumber(count)
  end
  return state
end

function slidingWindow.decide(state, now, p, cost)
  local window = openWindow(state, now, p)
  if window.used + cost <= p.limit then
    if cost > 0 then
      window.bySegment[window.current] = (window.bySegment[window.current] or 0) + cost
    end
    local nextState, ttl = closeWindow(window, now, p)
    return {
      allowed = true,
      remaining = p.limit - window.used - cost,
      reset = ttl,
      retry = 0,
      delay = 0,
      state = nextState,
      ttl = ttl,
    }
  end
  local retry = 0
  local freed = 0
  for segment = window.current - p.segments + 1, window.current do
    freed = freed + (window.bySegment[segment] or 0)
    if window.used - freed + cost <= p.limit then
      retry = (segment + p.segments) * p.segment - now
      break
    end
  end
  local reset = ((window.newest or window.current) + p.segments) * p.segment - now
  return {
    allowed = false,
    remaining = math.max(0, p.limit - window.used),
    reset = reset,
    retry = retry,
    delay = 0,
    ttl = reset,
  }
end

function slidingWindow.refund(state, now, p, cost)
  if not state then
    return nil
  end
  local window = openWindow(state, now, p)
  local left = cost
  local segment = window.current
  while segment > window.current - p.segments and left > 0 do
    local count = window.bySegment[segment] or 0
    local taken = math.min(count, left)
    window.bySegment[segment] = count - taken
    left = left - taken
    segment = segment - 1
  end
  return closeWindow(window, now, p)
end

function slidingWindow.write(key, state, ttl)
  local slots = {}
  for slot in pairs(state.counts) do
    slots[#slots + 1] = slot
  end
  table.sort(slots)
  local words = { int(state.latest) }
  for _, slot in ipairs(slots) do
    words[#words + 1] = string.format('%d:%d', slot, state.counts[slot])
  end
  store(key, table.concat(words, ' '), ttl)
end
