-- Penalty state per identifier and policy: the end of the current or last block (blockedUntil),
-- how many blocks so far (offence), and the rejections counted towards the next one (violations,
-- since), as "<blockedUntil> <offence> <violations> <since>". See penalty.ts.
local penalty = {}

local NO_PENALTY = { blockedUntil = 0, offence = 0, violations = 0, since = 0 }

-- A block set by hand keeps `since` = 1 while no violations are counted (`since` is read only
-- when there are some): shadow mode does not suspend it, as it suspends the policy's own blocks.
-- The format stays four numbers, so an instance of an earlier release reads it as before.
local MANUAL = 1

function penalty.isManual(state)
  return state.violations == 0 and state.since == MANUAL
end

function penalty.decode(value)
  if not value then
    return NO_PENALTY
  end
  local blockedUntil, offence, violations, since = string.match(value, '^(%d+) (%d+) (%d+) (%d+)$')
  return {
    blockedUntil = tonumber(blockedUntil),
    offence = tonumber(offence),
    violations = tonumber(violations),
    since = tonumber(since),
  }
end

function penalty.isBlocked(state, now)
  return state.blockedUntil > now
end

local function currentOffence(state, now, forgetAfter)
  if state.offence > 0 and now < state.blockedUntil + forgetAfter then
    return state.offence
  end
  return 0
end

function penalty.blockDuration(rule, offence)
  local duration = math.min(rule.block, rule.maxBlock)
  for _ = 2, offence do
    local longer = math.min(rule.maxBlock, math.floor(duration * rule.escalation))
    if longer == duration then
      break
    end
    duration = longer
  end
  return duration
end

function penalty.violate(state, now, period, rule)
  local fresh = state.violations == 0 or now - state.since >= period
  local violations, since = state.violations + 1, state.since
  if fresh then
    violations, since = 1, now
  end
  if violations < rule.afterViolations then
    return {
      blockedUntil = state.blockedUntil,
      offence = state.offence,
      violations = violations,
      since = since,
    }, false
  end
  local offence = currentOffence(state, now, rule.forgetAfter) + 1
  return {
    blockedUntil = now + penalty.blockDuration(rule, offence),
    offence = offence,
    violations = 0,
    since = 0,
  }, true
end

function penalty.block(state, now, duration)
  return { blockedUntil = now + duration, offence = state.offence, violations = 0, since = MANUAL }
end

function penalty.unblock(state, now)
  return {
    blockedUntil = math.min(state.blockedUntil, now),
    offence = state.offence,
    violations = 0,
    since = 0,
  }
end

function penalty.ttl(state, now, period, forgetAfter)
  local ttl = state.blockedUntil - now
  if state.offence > 0 then
    ttl = math.max(ttl, state.blockedUntil + forgetAfter - now)
  end
  if state.violations > 0 then
    ttl = math.max(ttl, state.since + period - now)
  end
  return ttl
end

function penalty.write(key, state, ttl)
  local value = string.format('%d %d %d %d', state.blockedUntil, state.offence, state.violations, state.since)
  store(key, value, ttl)
end
