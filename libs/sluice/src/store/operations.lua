-- A store call runs operate(): KEYS[1] is `<prefix>:{<keyKind>:<identifier>}` and every
-- key touched is derived from it, so one call stays in one Redis Cluster slot.
-- ARGV: operation, now in µs ('' = Redis TIME), the operation's argument (block: its duration in
-- ms; consume and release: the lease of a concurrency policy; grant: the credits, made once as
-- "<a>@<mark>" and taken back as "<a>!<mark>" (quota.ops.lua); settle: the units), then one spec
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
-- retry, delay, blockedUntil, offence, blockStarted, granted. The usual admission of one policy,
-- whose other fields are all an admission's defaults, is only remaining and reset
-- (admittedReply). A grant's or a settlement's reply carries the units used and the credits
-- granted in the places of retry and delay.
-- operateMany() runs several calls, one after the other, in one FCALL (see its comment).
-- The operations are in charge.ops.lua, quota.ops.lua and key.ops.lua; specs are decoded in
-- spec.lua, state read in state.lua, and decisions built in decide.lua.

-- Each operation by its name in ARGV[1], from its family's file.
local OPERATIONS = {
  consume = consumeOp,
  peek = peekOp,
  sync = syncOp,
  grant = quotaOp('grant'),
  settle = quotaOp('settle'),
  release = releaseOp,
  refund = keyOp('refund'),
  reset = keyOp('reset'),
  block = keyOp('block'),
  unblock = keyOp('unblock'),
  forget = keyOp('forget'),
}

-- One call on the identifier's key base, its time already set.
local function perform(base, op, now, argument, specs)
  local run = OPERATIONS[op]
  if not run then
    return redis.error_reply('ERR sluice: unknown operation ' .. tostring(op))
  end
  return run(base, now, argument, specs)
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

-- The call every word of a batch of one spec names, when they are all one consume that
-- consumeBatch can decide (a lean spec: decide.lua), else nil.
local function leanBatch(KEYS, ARGV, spec)
  local word = ARGV[3]
  if spec.err or not lean(spec) or #KEYS < 2 then
    return nil
  end
  for i = 4, #ARGV do
    if ARGV[i] ~= word then
      return nil
    end
  end
  local call = callOf(word, { spec })
  if call.op ~= 'consume' or call.failure or #call.specs ~= 1 then
    return nil
  end
  return call
end

-- Several calls, decided in turn as if made one after the other: KEYS[i] is call i's key.
-- ARGV: the count of distinct specs, those specs, then one word per call (callOf), or one word
-- that every call has, so a turn's calls of one policy send its spec once and decode it once. Redis TIME is read once, for every
-- call without a time of its own. Reply: one reply per call, as operate() gives it, or '!' and
-- the error of that call alone; where consumeBatch decides, a plain admission's two integers
-- stand in the list themselves, not as an array.
local function operateMany(KEYS, ARGV)
  beginStrings()
  local specCount = tonumber(ARGV[1])
  local specs = {}
  for i = 1, specCount do
    specs[i] = specOf(ARGV[i + 1])
  end
  local batch = specCount == 1 and leanBatch(KEYS, ARGV, specs[1])
  if batch then
    local now = setCallTime(batch.given, not batch.given and redisTime())
    local replies = consumeBatch(KEYS, specs[1], now, batch.argument)
    flushStrings()
    return replies
  end
  local replies, calls, redisNow = {}, {}, nil
  local byCall, reads = {}, {}
  local shared = #ARGV == specCount + 2 and ARGV[specCount + 2]
  for i = 1, #KEYS do
    local text = shared or ARGV[specCount + 1 + i]
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
