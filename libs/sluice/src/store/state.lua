-- Where a policy's state and penalty live under an identifier's key, and how a call reads them.
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
