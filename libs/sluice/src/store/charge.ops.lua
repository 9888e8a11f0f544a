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
