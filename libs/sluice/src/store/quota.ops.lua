-- Quotas and what a request gives back: grant adds credits for the period now running (0 only
-- reads; docs/algorithms.md, "Credits"), settle charges units after the response, past the limit
-- if need be, and release ends a lease's slots with its request.

local function quotaOp(op)
  return function(base, now, argument, specs)
    local amount = tonumber(argument)
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
      n = put(out, n, 1, 0, verdict.remaining, verdict.reset, used, granted, 0, 0, 0)
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
    n = put(out, n, 1, 0, 0, 0, 0, 0, 0, 0, 0)
  end
  return out
end
