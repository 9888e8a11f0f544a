-- Operations on an identifier's counters and penalty rather than a request: refund gives a
-- charge back, reset forgets the counters, block and unblock set or lift a block by hand, forget
-- clears the offences. Each answers the block in force after it (unblock and forget: the one
-- they lifted).

local function keyOp(op)
  return function(base, now, argument, specs)
    local out, n = { 1 }, 1
    for _, spec in ipairs(specs) do
      local state = readPenalty(base, spec)
      local lifted = 0
      if op == 'refund' then
        local refunded, ttl = spec.algorithm.refund(readState(base, spec), now, spec.rate, spec.cost)
        if refunded then
          spec.algorithm.write(stateKey(base, spec), refunded, ttl)
        end
      elseif op == 'reset' then
        remove(stateKey(base, spec))
      elseif op == 'block' then
        state = penalty.block(state, now, tonumber(argument) * 1000)
        writePenalty(base, spec, state, now)
      elseif op == 'unblock' then
        if state.blockedUntil > now then
          lifted = state.blockedUntil
        end
        if state.blockedUntil > now or state.violations > 0 then
          state = penalty.unblock(state, now)
          writePenalty(base, spec, state, now)
        end
      else -- forget
        if state.blockedUntil > now then
          lifted = state.blockedUntil
        end
        remove(penaltyKey(base, spec))
        state = { blockedUntil = 0, offence = 0, violations = 0, since = 0 }
      end
      local blockedUntil = 0
      if state.blockedUntil > now then
        blockedUntil = state.blockedUntil
      end
      if op == 'unblock' or op == 'forget' then
        blockedUntil = lifted
      end
      n = put(out, n, 1, 0, 0, 0, 0, 0, blockedUntil, state.offence, 0, 0)
    end
    return out
  end
end
