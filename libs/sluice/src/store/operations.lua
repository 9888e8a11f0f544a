-- A store call runs operate(): KEYS[1] is `<prefix>:{<keyKind>:<identifier>}` and every
-- key touched is derived from it, so one call stays in one Redis Cluster slot.
-- ARGV: operation, now in µs ('' = Redis TIME), the operation's argument (block: its duration in
-- ms; consume and release: the lease of a concurrency policy; grant: the credits; settle: the
-- units), then one spec
-- per policy:
-- "name algorithm limit periodMs burst segments maxDelayMs mode cost
--  [afterViolations blockMs escalation maxBlockMs forgetAfterMs]" ('-' = not set). A calendar
-- fixed-window (which has no burst, segments or delay) carries its boundaries, epoch ms, in
-- those three places instead: the period's start, its end and the next period's end.
-- The spec's text is decoded once and kept (specOf).
-- mode: e (enforce), s (shadow) or c (candidate: a proposed revision of the policy named
-- `<name>~c` without its suffix, decided beside it on state of its own, never refusing the
-- request; docs/architecture.md, "Shadow candidates").
-- Reply: an array of integers (a table constructor costs this Lua less than formatting a
-- string; docs/benchmarks.md): admitted, then per policy: allowed, reason, remaining, reset,
-- retry, delay, blockedUntil, offence, blockStarted. A grant's or a settlement's reply carries
-- the units used and the credits granted in the places of retry and delay.
-- operateMany() runs several calls, one after the other, in one FCALL (see its comment).
local BY_CODE = {
  fw = fixedWindow,
  sl = slidingLog,
  sw = slidingWindow,
  tb = tokenBucket,
  lb = leakyBucket,
  gc = gcra,
  cc = concurrency,
}
local REASON = { ok = 0, limit = 1, blocked = 2, shadow = 3 }

local function optional(word)
  if word == '-' then
    return nil
  end
  return tonumber(word)
end

local function parseSpec(text)
  local f = {}
  for word in string.gmatch(text, '%S+') do
    f[#f + 1] = word
  end
  local algorithm = BY_CODE[f[2]]
  if not algorithm then
    return redis.error_reply('ERR sluice: unknown algorithm code ' .. tostring(f[2]))
  end
  local spec = {
    name = f[1],
    stateSuffix = ':' .. f[1] .. ':' .. f[2],
    penaltySuffix = ':' .. f[1] .. ':p',
    algorithm = algorithm,
    limit = tonumber(f[3]),
    periodMs = tonumber(f[4]),
    burst = optional(f[5]),
    segments = optional(f[6]),
    maxDelayMs = optional(f[7]),
    shadow = f[8] == 's',
    cost = tonumber(f[9]),
  }
  if f[2] == 'fw' and spec.burst then
    spec.calendar = { start = spec.burst, finish = spec.segments, next = spec.maxDelayMs }
    spec.burst, spec.segments, spec.maxDelayMs = nil, nil, nil
  end
  if f[8] == 'c' then
    spec.candidateOf = string.match(f[1], '^(.+)~c$')
    if not spec.candidateOf then
      return redis.error_reply('ERR sluice: a candidate is named <policy>~c, got ' .. f[1])
    end
  end
  spec.rate = rateParams(spec)
  if f[10] then
    spec.rule = {
      afterViolations = tonumber(f[10]),
      block = tonumber(f[11]) * 1000,
      escalation = tonumber(f[12]),
      maxBlock = tonumber(f[13]) * 1000,
      forgetAfter = tonumber(f[14]) * 1000,
    }
  end
  return spec
end

-- Parsing is a pure function of the spec's text, and a few specs serve most calls. A function
-- library's locals outlive a call, so parsed specs are kept, up to a bound.
local parsedSpecs, parsedCount = {}, 0
local function specOf(text)
  local spec = parsedSpecs[text]
  if spec then
    return spec
  end
  spec = parseSpec(text)
  if not spec.err then
    if parsedCount >= 1000 then
      parsedSpecs, parsedCount = {}, 0
    end
    parsedSpecs[text], parsedCount = spec, parsedCount + 1
  end
  return spec
end

local function stateKey(base, spec)
  return base .. spec.stateSuffix
end

local function penaltyKey(base, spec)
  return base .. spec.penaltySuffix
end

local function forgetAfter(spec)
  if spec.rule then
    return spec.rule.forgetAfter
  end
  return 0
end

local function writePenalty(base, spec, state, now)
  penalty.write(penaltyKey(base, spec), state, penalty.ttl(state, now, spec.rate.period, forgetAfter(spec)))
end

local function readPenalty(base, spec)
  return penalty.decode((readStrings(penaltyKey(base, spec))))
end

local function readState(base, spec)
  if spec.algorithm.inPlace then
    return stateKey(base, spec)
  end
  return spec.algorithm.decode((readStrings(stateKey(base, spec))))
end

-- A policy's penalty and state, in one command when the state is a string; key is its state's.
local function readBoth(base, spec, key)
  if spec.algorithm.inPlace then
    return readPenalty(base, spec), key
  end
  local penaltyValue, stateValue = readStrings(penaltyKey(base, spec), key)
  return penalty.decode(penaltyValue), spec.algorithm.decode(stateValue)
end

-- One policy's entry of a call: its state key, penalty and state as read. Every field is in the
-- constructor: a table grown field by field is rebuilt as it grows.
local function entryOf(base, spec)
  local key = stateKey(base, spec)
  local penaltyState, state = readBoth(base, spec, key)
  return {
    spec = spec,
    key = key,
    penalty = penaltyState,
    state = state,
    verdict = false,
    reason = false,
    charged = false,
    started = false,
  }
end

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

-- One policy's outcome, the nine integers of the reply. charged: whether the live policies were;
-- a candidate says for itself (entry.charged).
local function outcomeOf(entry, charged, now)
  local allowed = (entry.reason == 'ok' or entry.reason == 'shadow') and 1 or 0
  if entry.spec.candidateOf then
    charged = entry.charged
  end
  local blockedUntil = 0
  local remaining, reset, retry, delay = 0, 0, 0, 0
  local verdict = entry.verdict
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
    entry.started and 1 or 0
end

-- Puts nine integers after out[n]; returns the new end.
local function put(out, n, a, b, c, d, e, f, g, h, i)
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = a, b, c, d, e
  out[n + 6], out[n + 7], out[n + 8], out[n + 9] = f, g, h, i
  return n + 9
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

-- The usual consume, one live policy with a string state and no penalty state, without the
-- general path's tables: the same reply perform() would give, or nil when the call needs that
-- path (a penalty or a block on record, a candidate, a refusal that counts towards a penalty).
local function consumeOne(base, spec, now, lease)
  local algorithm = spec.algorithm
  if spec.candidateOf or algorithm.inPlace then
    return nil
  end
  local key = stateKey(base, spec)
  local penaltyValue, stateValue = readStrings(penaltyKey(base, spec), key)
  if penaltyValue then
    return nil
  end
  local verdict = algorithm.decide(algorithm.decode(stateValue), now, spec.rate, spec.cost, lease)
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
  local retry = math.max(0, verdict.retry)
  return { admitted, allowed, reason, verdict.remaining, verdict.reset, retry, verdict.delay, 0, 0, 0 }
end

-- One call on the identifier's key base, its time already set.
local function perform(base, op, now, argument, specs)
  if op == 'consume' then
    if #specs == 1 then
      local reply = consumeOne(base, specs[1], now, argument)
      if reply then
        return reply
      end
    end
    local entries, admitted = evaluate(base, specs, now, argument)
    for _, entry in ipairs(entries) do
      local spec = entry.spec
      if spec.candidateOf then
        -- What the candidate would have done, on its own keys: charged when its request would
        -- have passed, its penalty counted (and its block kept) but never applied.
        entry.charged = candidatePasses(entries, entry)
        if entry.charged then
          spec.algorithm.write(entry.key, entry.verdict.state, entry.verdict.ttl)
        elseif entry.reason == 'limit' and spec.rule then
          entry.penalty, entry.started = penalty.violate(entry.penalty, now, spec.rate.period, spec.rule)
          writePenalty(base, spec, entry.penalty, now)
        end
      elseif admitted and entry.reason == 'ok' then
        spec.algorithm.write(entry.key, entry.verdict.state, entry.verdict.ttl)
      elseif not admitted and entry.reason == 'limit' and spec.rule then
        entry.penalty, entry.started = penalty.violate(entry.penalty, now, spec.rate.period, spec.rule)
        writePenalty(base, spec, entry.penalty, now)
      end
    end
    return reply(entries, admitted, admitted, now)
  end

  if op == 'peek' then
    local entries, admitted = evaluate(base, specs, now, argument)
    return reply(entries, admitted, false, now)
  end

  if op == 'grant' or op == 'settle' then
    -- grant: credits for the period now falls in (docs/algorithms.md, "Credits"); 0 only reads.
    -- settle: units charged (or given back) after the response, past the limit if need be.
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

  if op == 'release' then
    -- The lease's slots end with its request; a policy without leases has nothing to give back.
    local out, n = { 1 }, 1
    for _, spec in ipairs(specs) do
      if spec.algorithm.release then
        spec.algorithm.release(stateKey(base, spec), argument, spec.cost, now)
      end
      n = put(out, n, 1, 0, 0, 0, 0, 0, 0, 0, 0)
    end
    return out
  end

  if op == 'sync' then
    -- Each spec's cost is what an instance admitted on its own (store/eventual.store.ts):
    -- charged as far as the state has room, never as a violation, then the state as it now is.
    local entries = {}
    for i, spec in ipairs(specs) do
      local entry = entryOf(base, spec)
      local room = spec.algorithm.decide(entry.state, now, spec.rate, 0).remaining
      local units = math.min(spec.cost, room)
      if units > 0 then
        local charged = spec.algorithm.decide(entry.state, now, spec.rate, units)
        if charged.allowed then
          spec.algorithm.write(stateKey(base, spec), charged.state, charged.ttl)
          entry.state = readState(base, spec)
        end
      end
      entry.verdict = spec.algorithm.decide(entry.state, now, spec.rate, 0)
      entry.reason = penalty.isBlocked(entry.penalty, now) and 'blocked' or 'ok'
      entries[i] = entry
    end
    return reply(entries, true, true, now)
  end

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
    elseif op == 'forget' then
      if state.blockedUntil > now then
        lifted = state.blockedUntil
      end
      remove(penaltyKey(base, spec))
      state = { blockedUntil = 0, offence = 0, violations = 0, since = 0 }
    else
      return redis.error_reply('ERR sluice: unknown operation ' .. tostring(op))
    end
    local blockedUntil = 0
    if state.blockedUntil > now then
      blockedUntil = state.blockedUntil
    end
    if op == 'unblock' or op == 'forget' then
      blockedUntil = lifted
    end
    n = put(out, n, 1, 0, 0, 0, 0, 0, blockedUntil, state.offence, 0)
  end
  return out
end

-- One call: KEYS and ARGV as described at the top of this file.
local function operate(KEYS, ARGV)
  beginStrings()
  local given = tonumber(ARGV[2])
  local now = setCallTime(given, not given and redisTime())
  local specs, failure = specsIn(ARGV, 4, #ARGV)
  if failure then
    return failure
  end
  local reply = perform(KEYS[1], ARGV[1], now, ARGV[3], specs)
  flushStrings()
  return reply
end

-- Operations that read each policy's penalty and state (readBoth) before anything is written.
local READS_BOTH = { consume = true, peek = true, sync = true }

-- A call of operateMany as its ARGV word gives it: "op now argument i…", '-' for a time or an
-- argument not given, then the 1-based index of each of its specs among the FCALL's.
local function callOf(text, specs)
  local words = {}
  for w in string.gmatch(text, '%S+') do
    words[#words + 1] = w
  end
  local call = { op = words[1], given = tonumber(words[2]), argument = words[3], specs = {} }
  if call.argument == '-' then
    call.argument = ''
  end
  for i = 4, #words do
    local spec = specs[tonumber(words[i])]
    if not spec or spec.err then
      call.failure = spec or redis.error_reply('ERR sluice: no spec ' .. tostring(words[i]))
      return call
    end
    call.specs[i - 3] = spec
  end
  return call
end

-- Several calls, decided in turn as if made one after the other: KEYS[i] is call i's key.
-- ARGV: the count of distinct specs, those specs, then one word per call (callOf), so a turn's
-- calls of one policy send its spec once and decode it once. Redis TIME is read once, for every
-- call without a time of its own. Reply: one reply per call, as operate() gives it, or '!' and
-- the error of that call alone.
local function operateMany(KEYS, ARGV)
  beginStrings()
  local specCount = tonumber(ARGV[1])
  local specs = {}
  for i = 1, specCount do
    specs[i] = specOf(ARGV[i + 1])
  end
  local replies, calls, redisNow = {}, {}, nil
  local byCall, reads = {}, {}
  for i = 1, #KEYS do
    local text = ARGV[specCount + 1 + i]
    local call = calls[text]
    if not call then
      call = callOf(text, specs)
      calls[text] = call
    end
    byCall[i] = call
    if READS_BOTH[call.op] and not call.failure then
      for _, spec in ipairs(call.specs) do
        reads[#reads + 1] = penaltyKey(KEYS[i], spec)
        if not spec.algorithm.inPlace then
          reads[#reads + 1] = stateKey(KEYS[i], spec)
        end
      end
    end
  end
  prefetchStrings(reads)
  for i = 1, #KEYS do
    local call = byCall[i]
    local reply = call.failure
    if not reply then
      if not call.given and not redisNow then
        redisNow = redisTime()
      end
      local now = setCallTime(call.given, redisNow)
      reply = perform(KEYS[i], call.op, now, call.argument, call.specs)
    end
    if reply.err then
      reply = '!' .. tostring(reply.err)
    end
    replies[i] = reply
  end
  flushStrings()
  return replies
end
