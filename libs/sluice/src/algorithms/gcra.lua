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

-- decide's answer when it admits, without its table: the tat after it, remaining, reset and
-- the TTL; nil when decide refuses. The lean batch (charge.ops.lua) asks it first.
function gcra.admit(tat, now, p, cost)
  local burstWindow = p.burst * p.interval
  local nextTat = math.max(tat or now, now) + cost * p.interval
  local reset = nextTat - now
  if reset > burstWindow then
    return nil
  end
  return nextTat, idiv(burstWindow - reset, p.interval), reset, reset
end

function gcra.refund(tat, now, p, cost)
  if not tat then
    return nil
  end
  local nextTat = math.max(now, tat - cost * p.interval)
  return nextTat, nextTat - now
end

-- Where a key's expiry may fall: on a grid of the largest power of ten milliseconds (1 ms to
-- 100 s, in µs here) no longer than a tenth of the policy's burst window, each size named by a
-- whitespace character, which ends the format its values are written with (docs/algorithms.md,
-- "A gcra key's expiry").
local GRIDS = {
  { 100000000, '%d ' },
  { 10000000, '%d\r' },
  { 1000000, '%d\f' },
  { 100000, '%d\v' },
  { 10000, '%d\n' },
  { 1000, '%d\t' },
}
local GRID_OF_MARK = { [32] = 100000000, [13] = 10000000, [12] = 1000000, [11] = 100000, [10] = 10000, [9] = 1000 }
-- A marked value is written by one format with its mark in it: one string made, not two.
local FORMAT_OF_MARK = { [32] = '%d ', [13] = '%d\r', [12] = '%d\f', [11] = '%d\v', [10] = '%d\n', [9] = '%d\t' }

-- before, raw and p come from the lean batch (charge.ops.lua): the tat as read, its value as read
-- and the policy's rate. There, under Redis's clock, the key expires at the end of its tat's cell
-- of the grid, and its value ends with the grid's mark, which tonumber skips (the previous release
-- reads it as a number). A write whose tat stays in the cell of a marked value as read keeps the
-- key's TTL, a cheaper SET. An unmarked value (any other write, the previous release's, one under
-- an injected clock) expires exactly with its state.
function gcra.write(key, tat, ttl, before, raw, p)
  if not p or ttl <= 0 or not callTime.fromRedis then
    store(key, int(tat), ttl)
    return
  end
  local mark = raw and string.byte(raw, -1)
  local grid = mark and GRID_OF_MARK[mark]
  if grid and idiv(before, grid) == idiv(tat, grid) then
    store(key, string.format(FORMAT_OF_MARK[mark], tat), ttl, true)
    return
  end
  local most = idiv(p.burst * p.interval, 10)
  for _, size in ipairs(GRIDS) do
    grid = size[1]
    if grid <= most then
      store(key, string.format(size[2], tat), (idiv(tat, grid) + 1) * grid - callTime.now)
      return
    end
  end
  store(key, int(tat), ttl)
end
