-- A policy's rate in integer microseconds (see rate-params.ts).
local function rateParams(spec)
  local period = spec.periodMs * 1000
  local interval = ceilDiv(period, spec.limit)
  local burst = spec.burst or spec.limit
  local segments = spec.segments or 1
  local maxDelay = (burst - 1) * interval
  if spec.maxDelayMs then
    maxDelay = spec.maxDelayMs * 1000
  end
  local params = {
    limit = spec.limit,
    period = period,
    burst = burst,
    interval = interval,
    segments = segments,
    segment = idiv(period, segments),
    maxDelay = maxDelay,
  }
  if spec.calendar then
    params.calendar = {
      start = spec.calendar.start * 1000,
      finish = spec.calendar.finish * 1000,
      next = spec.calendar.next * 1000,
    }
  end
  return params
end
