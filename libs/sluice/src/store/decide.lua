-- Deciding: every policy of a call evaluated on its state, the reply built, and the usual
-- one-policy consume without the general path's tables.
-- Every policy decided on the state as it is; nothing written yet. A candidate never refuses
-- the request: `admitted` is the live policies' answer alone.
local function evaluate(base, specs, now, lease)
  local entries = {}
  local admitted = true
  for i, spec in ipairs(specs) do
    local entry = entryOf(base, spec)
    -- Decided even while blocked: a refusal must also wait for the rate state to admit it.
    entry.verdict = spec.algorithm.decide(entry.state, now, spec.rate, spec.cost, lease)
    if penalty.isBlocked(entry.penalty, now) then
      entry.reason = 'blocked'
    else
      entry.reason = entry.verdict.allowed and 'ok' or 'limit'
    end
    -- Shadow mode refuses nothing but a block set by hand: an operator's block is meant.
    local manual = entry.reason == 'blocked' and penalty.isManual(entry.penalty)
    if entry.reason ~= 'ok' and spec.shadow and not manual then
      entry.reason = 'shadow'
    end
    if not spec.candidateOf and (entry.reason == 'limit' or entry.reason == 'blocked') then
      admitted = false
    end
    entries[i] = entry
  end
  return entries, admitted
end

-- Whether a candidate's request would have passed had the candidate been live: it admits, and
-- no live policy refuses other than the one it would replace.
local function candidatePasses(entries, candidate)
  if candidate.reason ~= 'ok' then
    return false
  end
  for _, entry in ipairs(entries) do
    local spec = entry.spec
    local refuses = entry.reason == 'limit' or entry.reason == 'blocked'
    if refuses and not spec.candidateOf and spec.name ~= candidate.spec.candidateOf then
      return false
    end
  end
  return true
end

-- One policy's outcome, the ten integers of the reply. charged: whether the live policies were;
-- a candidate says for itself (entry.charged).
local function outcomeOf(entry, charged, now)
  local allowed = (entry.reason == 'ok' or entry.reason == 'shadow') and 1 or 0
  if entry.spec.candidateOf then
    charged = entry.charged
  end
  local blockedUntil = 0
  local remaining, reset, retry, delay = 0, 0, 0, 0
  local verdict = entry.verdict
  local granted = verdict and verdict.granted or 0
  if penalty.isBlocked(entry.penalty, now) then
    blockedUntil = entry.penalty.blockedUntil
    reset = blockedUntil - now
    retry = reset
    if verdict and not verdict.allowed then
      retry = math.max(retry, verdict.retry)
      reset = math.max(reset, verdict.reset)
    end
  elseif verdict then
    if verdict.allowed and not charged then
      local unchanged = entry.spec.algorithm.decide(entry.state, now, entry.spec.rate, 0)
      remaining, reset, delay = unchanged.remaining, unchanged.reset, verdict.delay
    else
      remaining, reset, delay = verdict.remaining, verdict.reset, verdict.delay
      retry = math.max(retry, verdict.retry)
    end
  end
  return allowed,
    REASON[entry.reason],
    remaining,
    reset,
    retry,
    delay,
    blockedUntil,
    entry.penalty.offence,
    entry.started and 1 or 0,
    granted
end

-- Puts ten integers after out[n]; returns the new end.
local function put(out, n, a, b, c, d, e, f, g, h, i, j)
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = a, b, c, d, e
  out[n + 6], out[n + 7], out[n + 8], out[n + 9], out[n + 10] = f, g, h, i, j
  return n + 10
end

-- The reply: admitted, then each entry's outcome. One entry, the usual call, is one table
-- constructor, the cheapest way for this Lua to build it.
local function reply(entries, admitted, charged, now)
  if #entries == 1 then
    return { admitted and 1 or 0, outcomeOf(entries[1], charged, now) }
  end
  local out, n = { admitted and 1 or 0 }, 1
  for _, entry in ipairs(entries) do
    n = put(out, n, outcomeOf(entry, charged, now))
  end
  return out
end

-- The specs in ARGV[first..last], or the error reply of the first that does not parse.
local function specsIn(ARGV, first, last)
  local specs = {}
  for i = first, last do
    local spec = specOf(ARGV[i])
    if spec.err then
      return nil, spec
    end
    specs[#specs + 1] = spec
  end
  return specs
end

local function redisTime()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- Sets the time of the call: `given` µs (a test clock), else redisNow.
local function setCallTime(given, redisNow)
  callTime.fromRedis = not given
  callTime.now = given or redisNow
  return callTime.now
end

-- Whether an admission's reply can be remaining and reset alone: nothing else it would carry
-- differs from an admission's defaults (spec.codec.ts decodes it).
local function plain(verdict)
  return verdict.retry <= 0 and verdict.delay == 0 and (verdict.granted or 0) == 0
end

-- One policy's consume decided on its string state: the short reply of a plain admission, else
-- the ten integers.
local function admittedReply(verdict, admitted, allowed, reason)
  if admitted == 1 and reason == REASON.ok and plain(verdict) then
    return { verdict.remaining, verdict.reset }
  end
  local retry = math.max(0, verdict.retry)
  return { admitted, allowed, reason, verdict.remaining, verdict.reset, retry, verdict.delay, 0, 0, 0, verdict.granted or 0 }
end

-- One live policy's consume on its string state as read (key: the state's), without a penalty
-- on record: the same reply perform() would give, or nil when the call needs the general path
-- (a refusal that counts towards a penalty).
local function consumeState(spec, key, stateValue, now, lease)
  local algorithm = spec.algorithm
  local state = algorithm.decode(stateValue)
  if algorithm.admit then
    local after, remaining, reset, ttl = algorithm.admit(state, now, spec.rate, spec.cost)
    if after then
      algorithm.write(key, after, ttl)
      return { remaining, reset }
    end
  end
  local verdict = algorithm.decide(state, now, spec.rate, spec.cost, lease)
  local admitted, allowed, reason = 1, 1, REASON.ok
  if verdict.allowed then
    algorithm.write(key, verdict.state, verdict.ttl)
  elseif spec.rule then
    return nil
  elseif spec.shadow then
    reason = REASON.shadow
  else
    admitted, allowed, reason = 0, 0, REASON.limit
  end
  return admittedReply(verdict, admitted, allowed, reason)
end

-- Whether consumeState can decide a call of this spec: a live policy with a string state.
local function lean(spec)
  return not spec.candidateOf and not spec.algorithm.inPlace
end

-- The usual consume, one live policy with a string state and no penalty state, without the
-- general path's tables: the same reply perform() would give, or nil when the call needs that
-- path (a penalty or a block on record, a candidate, a refusal that counts towards a penalty).
local function consumeOne(base, spec, now, lease)
  if not lean(spec) then
    return nil
  end
  local key = stateKey(base, spec)
  local penaltyValue, stateValue = readStrings(penaltyKey(base, spec), key)
  if penaltyValue then
    return nil
  end
  return consumeState(spec, key, stateValue, now, lease)
end
