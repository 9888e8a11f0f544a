-- Operations that decide: consume charges the policies when every live one admits the request,
-- peek only answers, sync charges what an instance admitted on its own (eventual mode).

local function consumeOp(base, now, lease, specs)
  if #specs == 1 then
    local reply = consumeOne(base, specs[1], now, lease)
    if reply then
      return reply
    end
  end
  local entries, admitted = evaluate(base, specs, now, lease)
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

-- A batch's consumes of one lean spec (decide.lua), all at one time with one argument, the usual
-- turn of a busy policy. Each identifier's keys are made once and read in one MGET, its state
-- decoded once, decided call after call in the batch's own arrays, and written once, with the
-- last admission's TTL; where the algorithm has admit, a plain admission is decided without
-- decide's tables. A call with a penalty on record, or a refusal that counts towards one,
-- hands its identifier to consumeOp and the write-back cache for the rest of the batch. The
-- reply is operateMany's, but flat: a plain admission is two integers in it, not an array of two
-- (batched.call.ts reads it back; docs/benchmarks.md, "Redis CPU on many identifiers: the lean
-- batch").
local function consumeBatch(KEYS, spec, now, lease)
  local algorithm, rate, cost = spec.algorithm, spec.rate, spec.cost
  -- The algorithm as a batch at one time sees it, where it has such a form (fixed-window's reads
  -- a value of the current window by its count).
  if algorithm.batchAt then
    algorithm = algorithm.batchAt(now, rate)
  end
  local admit = algorithm.admit
  local stateSuffix, penaltySuffix = spec.stateSuffix, spec.penaltySuffix
  -- Each identifier has a slot, in the order first seen (slotOf[i]: call i's); a slot's penalty
  -- and state keys are reads[2 * slot - 1] and reads[2 * slot].
  local slots, slotOf, reads, count = {}, {}, {}, 0
  for i = 1, #KEYS do
    local base = KEYS[i]
    local key = base .. stateSuffix
    local slot = slots[key]
    if not slot then
      count = count + 1
      slot = count
      slots[key] = slot
      reads[2 * slot - 1], reads[2 * slot] = base .. penaltySuffix, key
    end
    slotOf[i] = slot
  end
  -- Up to 200 keys a command, as prefetchStrings reads them; a default batch needs one. MGET
  -- gives false for a key that has no value.
  local n = 2 * count
  local values = redis.call('MGET', unpack(reads, 1, math.min(n, 200)))
  for from = 201, n, 200 do
    local to = math.min(n, from + 199)
    local part = redis.call('MGET', unpack(reads, from, to))
    for j = from, to do
      values[j] = part[j - from + 1]
    end
  end
  -- Per slot: its state decoded (and as read), the TTL of its last admission (to be written),
  -- and whether the write-back cache has it from now on (handed): from its first call when a
  -- penalty is on record.
  local states, read, ttls, handed = {}, {}, {}, {}
  for slot = 1, count do
    local penaltyValue, stateValue = values[2 * slot - 1], values[2 * slot]
    local state = algorithm.decode(stateValue or nil)
    states[slot], read[slot], handed[slot] = state, state, penaltyValue and true or false
    if penaltyValue then
      strings[reads[2 * slot - 1]], strings[reads[2 * slot]] = penaltyValue, stateValue
    end
  end
  -- replies[1..m]: a plain admission's remaining and reset as two integers, any other reply as
  -- its array.
  local replies, m = {}, 0
  for i = 1, #KEYS do
    local slot = slotOf[i]
    local reply
    local after, remaining, reset, ttl
    if admit and not handed[slot] then
      after, remaining, reset, ttl = admit(states[slot], now, rate, cost)
    end
    if after then
      states[slot], ttls[slot] = after, ttl
      replies[m + 1], replies[m + 2] = remaining, reset
      m = m + 2
      reply = false
    elseif not handed[slot] then
      local verdict = algorithm.decide(states[slot], now, rate, cost, lease)
      if verdict.allowed then
        states[slot], ttls[slot] = verdict.state, verdict.ttl
        if plain(verdict) then
          replies[m + 1], replies[m + 2] = verdict.remaining, verdict.reset
          m = m + 2
          reply = false
        else
          reply = admittedReply(verdict, 1, 1, REASON.ok)
        end
      elseif not spec.rule then
        local admitted = spec.shadow and 1 or 0
        reply = admittedReply(verdict, admitted, admitted, spec.shadow and REASON.shadow or REASON.limit)
      else
        -- A refusal that counts towards a penalty: the identifier's state as this batch left it
        -- goes to the write-back cache, which the general path reads and writes from now on.
        handed[slot] = true
        strings[reads[2 * slot - 1]] = false
        if ttls[slot] then
          algorithm.write(reads[2 * slot], states[slot], ttls[slot])
          ttls[slot] = nil
        else
          strings[reads[2 * slot]] = values[2 * slot]
        end
      end
    end
    if reply ~= false then
      m = m + 1
      replies[m] = reply or consumeOp(KEYS[i], now, lease, { spec })
    end
  end
  writeThrough(true)
  for slot = 1, count do
    local ttl = ttls[slot]
    if ttl then
      algorithm.write(reads[2 * slot], states[slot], ttl, read[slot], values[2 * slot], rate)
    end
  end
  writeThrough(false)
  return replies
end

local function peekOp(base, now, argument, specs)
  local entries, admitted = evaluate(base, specs, now, argument)
  return reply(entries, admitted, false, now)
end

-- Each spec's cost is what an instance admitted on its own (store/eventual.store.ts): charged as
-- far as the state has room, never as a violation, then the state as it now is.
local function syncOp(base, now, _, specs)
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
