-- fixed-window: the window (its index floor(now / period), or for a calendar period its start in
-- µs), what it has admitted, and the credits granted for it when there are any (negative: a
-- debit): "<window> <count>[ <granted>]" (docs/algorithms.md, "Credits").
local fixedWindow = {}

function fixedWindow.decode(value)
  if not value then
    return nil
  end
  local window, count, granted = string.match(value, '^(%-?%d+) (%d+) ?(%-?%d*)$')
  return { window = tonumber(window), count = tonumber(count), granted = tonumber(granted) or 0 }
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

-- The algorithm as a batch decided at one time sees it (charge.ops.lua's consumeBatch): a value
-- written in the window now falls in and without credits, "<window> <count>", is decoded to its
-- count alone, a number, which admit moves and write writes back without a table; any other
-- value is decode's table, which fixedWindow's own functions take. A pattern with three captures
-- and a table cost a decision on 10 000 identifiers about 0.5 µs more (docs/benchmarks.md).
function fixedWindow.batchAt(now, p)
  local window, finish = windowAt(now, p)
  local prefix = string.format('%d ', window)
  local format = prefix .. '%d'
  local from = #prefix + 1
  local reset = math.max(1, finish - now)
  local function tableOf(state)
    if type(state) == 'number' then
      return { window = window, count = state, granted = 0 }
    end
    return state
  end
  local batch = {}
  function batch.decode(value)
    if value and string.find(value, prefix, 1, true) == 1 then
      -- tonumber gives nil for "<count> <granted>": credits take decode.
      local count = tonumber(string.sub(value, from))
      if count then
        return count
      end
    end
    return fixedWindow.decode(value)
  end
  function batch.admit(state, at, rate, cost)
    if type(state) ~= 'number' then
      return fixedWindow.admit(state, at, rate, cost)
    end
    local count = state + cost
    if count > rate.limit then
      return nil
    end
    return count, rate.limit - count, reset, reset
  end
  function batch.decide(state, at, rate, cost, lease)
    return fixedWindow.decide(tableOf(state), at, rate, cost, lease)
  end
  -- A count was read in this window, so its key keeps the TTL it has.
  function batch.write(key, state, ttl, before)
    if type(state) == 'number' then
      store(key, string.format(format, state), ttl, type(before) == 'number')
    else
      fixedWindow.write(key, state, ttl, tableOf(before))
    end
  end
  return batch
end

-- The window a request now counts in and when it ends: now's, or a later one already counted (a
-- clock that stepped back), by period only: a calendar window's end is known only for the
-- boundaries given.
local function countedWindow(state, now, p)
  local window, finish = windowAt(now, p)
  if state and not p.calendar and state.window > window then
    window = state.window
    finish = (window + 1) * p.period
  end
  return window, finish
end

function fixedWindow.decide(state, now, p, cost)
  local window, finish = countedWindow(state, now, p)
  local count = 0
  local granted = 0
  if state and state.window == window then
    count = state.count
    granted = state.granted
  end
  local reset = math.max(1, finish - now)
  local limit = p.limit + granted
  if count + cost <= limit then
    return {
      allowed = true,
      remaining = limit - count - cost,
      reset = reset,
      retry = 0,
      delay = 0,
      state = { window = window, count = count + cost, granted = granted },
      ttl = reset,
      granted = granted,
    }
  end
  return {
    allowed = false,
    remaining = math.max(0, limit - count),
    reset = reset,
    retry = reset,
    delay = 0,
    ttl = reset,
    granted = granted,
  }
end

-- decide's answer when it is a plain admission (allowed, no credits), without its tables: the
-- state after it, remaining, reset and the TTL; nil when decide would answer anything else. The
-- lean batch (charge.ops.lua) asks it first. state is the caller's own decoding: within its
-- window its count moves in place, so the window as read stays what the key's TTL was set for.
function fixedWindow.admit(state, now, p, cost)
  local window, finish = countedWindow(state, now, p)
  local count = 0
  if state and state.window == window then
    if state.granted ~= 0 then
      return nil
    end
    count = state.count
  end
  if count + cost > p.limit then
    return nil
  end
  local reset = math.max(1, finish - now)
  if state and state.window == window then
    state.count = count + cost
  else
    state = { window = window, count = cost, granted = 0 }
  end
  return state, p.limit - count - cost, reset, reset
end

function fixedWindow.refund(state, now, p, cost)
  local window, finish = windowAt(now, p)
  if not state or state.window < window then
    return nil
  end
  local count = math.max(0, state.count - cost)
  local ttl = 0
  if count > 0 or state.granted ~= 0 then
    if p.calendar then
      ttl = finish - now
    else
      ttl = (state.window + 1) * p.period - now
    end
  end
  return { window = state.window, count = count, granted = state.granted }, ttl
end

-- The window decide counts in, with what it has counted and been granted so far: window,
-- finish, count, granted.
local function current(state, now, p)
  local window, finish = countedWindow(state, now, p)
  if not state or state.window ~= window then
    return window, finish, 0, 0
  end
  return window, finish, state.count, state.granted
end

-- Adds amount credits (negative: a debit) to the window now falls in, its count kept; a window
-- not yet counted starts with them. They end with the window.
function fixedWindow.grant(state, now, p, amount)
  local window, finish, count, granted = current(state, now, p)
  return { window = window, count = count, granted = granted + amount }, math.max(1, finish - now)
end

-- Charges amount more units (negative: gives them back) in the window now falls in, past the
-- limit if need be: a charge settled after the response (docs/algorithms.md, "Charges settled
-- after the response").
function fixedWindow.settle(state, now, p, amount)
  local window, finish, count, granted = current(state, now, p)
  return { window = window, count = math.max(0, count + amount), granted = granted }, math.max(1, finish - now)
end

-- What a quota holds now: units counted and credits granted in the window now falls in.
function fixedWindow.usage(state, now, p)
  local _, _, count, granted = current(state, now, p)
  return count, granted
end

-- before: the state as read, when the caller has it. A window's key expires at the window's end
-- whoever wrote it, so a write in the window it was read in keeps the TTL it has.
function fixedWindow.write(key, state, ttl, before)
  local keep = before ~= nil and before.window == state.window
  if state.granted and state.granted ~= 0 then
    store(key, string.format('%d %d %d', state.window, state.count, state.granted), ttl, keep)
  else
    store(key, string.format('%d %d', state.window, state.count), ttl, keep)
  end
end
