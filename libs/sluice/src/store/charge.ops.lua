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
-- last admission's TTL. A call with a penalty on record, or a refusal that counts towards one,
-- hands its identifier to consumeOp and the write-back cache for the rest of the batch. The
-- reply is operateMany's, but flat: a plain admission is two integers in it, not an array of two
-- (batched.call.ts reads it back; docs/benchmarks.md, "Redis CPU on many identifiers: the lean
-- batch").
local function consumeBatch(KEYS, spec, now, lease)
  local algorithm, rate, cost = spec.algorithm, spec.rate, spec.cost
  local stateSuffix, penaltySuffix = spec.stateSuffix, spec.penaltySuffix
  -- firstOf[i]: the first call of call i's identifier, whose slot in the arrays it shares.
  local seen, firstOf, stateKeys, reads, n = {}, {}, {}, {}, 0
  for i = 1, #KEYS do
    local base = KEYS[i]
    local key = base .. stateSuffix
    local first = seen[key]
    if not first then
      first = i
      seen[key] = i
      stateKeys[i] = key
      reads[n + 1], reads[n + 2] = base .. penaltySuffix, key
      n = n + 2
    end
    firstOf[i] = first
  end
  -- Up to 200 keys a command, as prefetchStrings reads them; a default batch needs one.
  local values = redis.call('MGET', unpack(reads, 1, math.min(n, 200)))
  for from = 201, n, 200 do
    local to = math.min(n, from + 199)
    local part = redis.call('MGET', unpack(reads, from, to))
    for j = from, to do
      values[j] = part[j - from + 1]
    end
  end
  -- Per identifier, in its first call's slot: its state decoded (and as read), the TTL of its
  -- last admission (to be written), whether the write-back cache has it from now on (handed). replies[1..m]:
  -- a plain admission's remaining and reset as two integers, any other reply as its array.
  local states, read, ttls, handed, readAt, replies, m = {}, {}, {}, {}, {}, {}, 0
  local at = 0
  for i = 1, #KEYS do
    local first = firstOf[i]
    if first == i then
      at = at + 2
      readAt[i] = at
      -- MGET gives false for a key that has no value.
      states[i] = algorithm.decode(values[at] or nil)
      read[i] = states[i]
      -- An identifier with a penalty on record takes the general path from its first call.
      handed[i] = values[at - 1] and true or false
      if handed[i] then
        strings[reads[at - 1]], strings[reads[at]] = values[at - 1], values[at] or false
      end
    end
    local reply
    if not handed[first] then
      local verdict = algorithm.decide(states[first], now, rate, cost, lease)
      if verdict.allowed then
        states[first], ttls[first] = verdict.state, verdict.ttl
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
        handed[first] = true
        local position = readAt[first]
        strings[reads[position - 1]] = false
        if ttls[first] then
          algorithm.write(stateKeys[first], states[first], ttls[first])
          ttls[first] = nil
        else
          strings[reads[position]] = values[position] or false
        end
      end
    end
    if reply ~= false then
      m = m + 1
      replies[m] = reply or consumeOp(KEYS[i], now, lease, { spec })
    end
  end
  writeThrough(true)
  for first, ttl in pairs(ttls) do
    algorithm.write(stateKeys[first], states[first], ttl, read[first])
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
