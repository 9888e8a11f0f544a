-- A policy's spec as a store call sends it (operations.lua, at the top), decoded once and kept.
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
