-- concurrency: the requests in flight, as leases in a sorted set: member the lease (one per unit,
-- "<lease>" then "<lease>#2"…), score when it expires by itself, µs. A lease is released when
-- its request ends (the `release` operation); one whose instance died lapses at its expiry.
-- Expired members are trimmed when the set is next written. The state is the key itself.
local concurrency = {}

-- A refusal's retry: slots free when requests end, which no clock predicts, so at most this long
-- (µs), sooner when a lease lapses sooner (docs/algorithms.md, "Concurrency").
local CONCURRENCY_RETRY = 1000000

concurrency.inPlace = true

local function leaseMembers(lease, cost)
  local members = { lease }
  for i = 2, cost do
    members[i] = lease .. '#' .. int(i)
  end
  return members
end

function concurrency.decide(key, now, p, cost, lease)
  local used = redis.call('ZCOUNT', key, '(' .. int(now), '+inf')
  local newest = nil
  if used > 0 then
    newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  end
  if used + cost <= p.limit then
    if cost == 0 then
      local reset = 0
      if newest then
        reset = newest - now
      end
      return { allowed = true, remaining = p.limit - used, reset = reset, retry = 0, delay = 0, ttl = reset }
    end
    local reset = math.max(newest or now, now + p.period) - now
    return {
      allowed = true,
      remaining = p.limit - used - cost,
      reset = reset,
      retry = 0,
      delay = 0,
      state = { since = now, expires = now + p.period, members = leaseMembers(lease or '', cost) },
      ttl = reset,
    }
  end
  -- The lease whose lapse would make room: the (used + cost - limit)th to expire.
  local lapses = redis.call('ZRANGEBYSCORE', key, '(' .. int(now), '+inf', 'WITHSCORES', 'LIMIT', used + cost - p.limit - 1, 1)
  return {
    allowed = false,
    remaining = math.max(0, p.limit - used),
    reset = newest - now,
    retry = math.min(CONCURRENCY_RETRY, tonumber(lapses[2]) - now),
    delay = 0,
    ttl = newest - now,
  }
end

-- A lease is given back by `release`, not by a refund: a refund after the response would free
-- a slot its request no longer holds anyway.
function concurrency.refund()
  return nil
end

-- Ends the lease's units; the set lives as long as its newest lease, and goes with its last live
-- one.
function concurrency.release(key, lease, cost, now)
  redis.call('ZREM', key, unpack(leaseMembers(lease, cost)))
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
  if newest and tonumber(newest) > now then
    expireIn(key, tonumber(newest) - now)
  else
    redis.call('DEL', key)
  end
end

function concurrency.write(key, state, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
    return
  end
  if type(state) == 'table' then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', int(state.since))
    local entries = {}
    for _, member in ipairs(state.members) do
      entries[#entries + 1] = state.expires
      entries[#entries + 1] = member
    end
    redis.call('ZADD', key, unpack(entries))
  end
  expireIn(key, ttl)
end
