-- gcra: one theoretical arrival time (tat), as redis-cell's CL.THROTTLE keeps it.
local gcra = {}

function gcra.decode(value)
  return tonumber(value)
end

function gcra.decide(tat, now, p, cost)
  local burstWindow = p.burst * p.interval
  local start = math.max(tat or now, now)
  local nextTat = start + cost * p.interval
  if nextTat - now <= burstWindow then
    return {
      allowed = true,
      remaining = idiv(burstWindow - (nextTat - now), p.interval),
      reset = nextTat - now,
      retry = 0,
      delay = 0,
      state = nextTat,
      ttl = nextTat - now,
    }
  end
  return {
    allowed = false,
    remaining = math.max(0, idiv(burstWindow - (start - now), p.interval)),
    reset = start - now,
    retry = nextTat - burstWindow - now,
    delay = 0,
    ttl = start - now,
  }
end

function gcra.refund(tat, now, p, cost)
  if not tat then
    return nil
  end
  local nextTat = math.max(now, tat - cost * p.interval)
  return nextTat, nextTat - now
end

function gcra.write(key, tat, ttl)
  store(key, int(tat), ttl)
end

