-- Quotas and what a request gives back: grant adds credits for the period now running (0 only
-- reads; docs/algorithms.md, "Credits"), settle charges units after the response, past the limit
-- if need be, and release ends a lease's slots with its request.

-- How long a grant's mark is kept: a day, in ms.
local MARK_TTL_MS = 86400000

-- A marked grant ("<amount>@<mark>") is made once: the mark is kept, and a call that finds it
-- changes nothing. Its undo ("<amount>!<mark>") takes back the amount when the mark says it was
-- made, and leaves the mark taken either way, so a grant arriving after its undo changes nothing.
local function markedAmount(base, amount, way, mark)
  local markKey = base .. ':g:' .. mark
  local seen = redis.call('GET', markKey)
  if way == '!' then
    redis.call('SET', markKey, '0', 'PX', MARK_TTL_MS)
    if seen == '1' then
      return -amount
    end
    return 0
  end
  if seen then
    return 0
  end
  redis.call('SET', markKey, '1', 'PX', MARK_TTL_MS)
  return amount
end

local function quotaOp(op)
  return function(base, now, argument, specs)
    local given, way, mark = string.match(argument, '^(%-?%d+)([@!]?)(%w*)$')
    local amount = tonumber(given)
    if not amount then
      return redis.error_reply('ERR sluice: bad amount ' .. tostring(argument))
    end
    if way ~= '' and mark ~= '' then
      amount = markedAmount(base, amount, way, mark)
    end
    local out, n = { 1 }, 1
    for _, spec in ipairs(specs) do
      local algorithm = spec.algorithm
      if not algorithm.grant then
        return redis.error_reply('ERR sluice: ' .. spec.name .. ' is not a quota (fixed-window)')
      end
      local state = readState(base, spec)
      if amount ~= 0 then
        local ttl
        state, ttl = algorithm[op](state, now, spec.rate, amount)
        algorithm.write(stateKey(base, spec), state, ttl)
      end
      local used, granted = algorithm.usage(state, now, spec.rate)
      local verdict = algorithm.decide(state, now, spec.rate, 0)
      n = put(out, n, 1, 0, verdict.remaining, verdict.reset, used, 0, 0, 0, 0, granted)
    end
    return out
  end
end

-- A policy without leases has nothing to give back.
local function releaseOp(base, now, lease, specs)
  local out, n = { 1 }, 1
  for _, spec in ipairs(specs) do
    if spec.algorithm.release then
      spec.algorithm.release(stateKey(base, spec), lease, spec.cost, now)
    end
    n = put(out, n, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
  end
  return out
end
