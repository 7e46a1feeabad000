-- Shared by the scripts that read or change wait queues (prepended to them by LockScripts). Their KEYS start
-- with n lock keys, then those keys' wait queues (sorted sets: ticket id by order), then the queues' deadlines
-- (sorted sets: ticket id by expiry, server milliseconds).

-- The server's clock in milliseconds.
local function nowMillis()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The next value of the fencing counter (a token, or a ticket's order). A new counter, or one lost with the
-- server's data, starts from the server's clock in microseconds, so that values stay above every earlier one.
-- With a floor (on a Redis Cluster, the token a multi-slot lease got from its earlier slots), the value is
-- above it too, and the counter is raised to it.
local function issue(counter, time, floor)
  local value = redis.call('INCR', counter)
  if value == 1 then
    local at = time[1] .. string.format('%06d', time[2])
    value = tonumber(at)
    redis.call('SET', counter, at)
  end
  if floor and value <= floor then
    value = floor + 1
    redis.call('SET', counter, string.format('%.0f', value))
  end
  return value
end

-- The token of a lease taken now (`at`: the server's clock in microseconds, as a string): above the floor
-- ARGV[10] and, when ARGV[11] is '1', at least the clock (the acquire scripts' arguments: see acquire.lua).
-- With the clock, the token is max(counter + 1, clock, floor + 1), as issue() gives it, but in one command
-- as a rule: the counter is set to max(clock, floor + 1) and its old value read by the same GETSET; only when
-- the old value was not below (several tokens in one microsecond, or a clock behind the counter) is the
-- counter set once more, to the old value + 1. A missing counter reads as 0. The script is atomic, so nobody
-- sees the counter between the two.
local function leaseToken(counter, time, at)
  local floor = tonumber(ARGV[10])
  if ARGV[11] ~= '1' then
    return issue(counter, time, floor)
  end
  local token = math.max(tonumber(at), floor + 1)
  local old = tonumber(redis.call('GETSET', counter, string.format('%.0f', token)) or '0')
  if old >= token then
    token = old + 1
    redis.call('SET', counter, string.format('%.0f', token))
  end
  return token
end

-- Makes `key` live at least `ms` more milliseconds (a queue lives as long as its longest-living ticket).
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, ms)
  end
end

-- Drops the expired tickets of the i-th key's queue.
local function purge(n, i, now)
  local queue, deadlines = KEYS[n + i], KEYS[2 * n + i]
  local expired = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now, 'LIMIT', 0, 100)
  while #expired > 0 do
    redis.call('ZREM', queue, unpack(expired))
    redis.call('ZREM', deadlines, unpack(expired))
    expired = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now, 'LIMIT', 0, 100)
  end
end

-- Takes a ticket out of the queues of the keys from..to, and returns, as "<byte length>:<key>" (without the
-- lock keys' prefix of `skip - 1` bytes), the free keys whose queues still have waiters: they may be theirs now.
local function leave(n, from, to, ticket, skip)
  local told = {}
  for i = from, to do
    if redis.call('ZREM', KEYS[n + i], ticket) == 1 then
      redis.call('ZREM', KEYS[2 * n + i], ticket)
      if redis.call('EXISTS', KEYS[n + i]) == 1 and redis.call('EXISTS', KEYS[i]) == 0 then
        local key = string.sub(KEYS[i], skip)
        told[#told + 1] = #key .. ':' .. key
      end
    end
  end
  return told
end


-- Whether a live ticket older than the caller's (`order`; any live ticket for a caller without one, `order` 0)
-- other than its own `ticket` waits for the i-th key (its queue purged first).
local function olderWaits(n, i, ticket, order)
  local first = redis.call('ZRANGE', KEYS[n + i], 0, 0, 'WITHSCORES')
  return #first > 0 and first[1] ~= ticket and (order == 0 or tonumber(first[2]) < order)
end

-- The reply of an acquire blocked at the `blocked`-th key: {-blocked, order}, order 0 for a caller without a
-- ticket. A ticket is placed (`order` kept, else a new one from `counter`) in the queues of the keys 1..blocked,
-- for `ticketLease` ms, and taken out of the later ones, whose next waiters are told on `channel` (`skip` as for
-- leave).
local function queueBlocked(n, blocked, ticket, order, counter, time, now, ticketLease, channel, skip)
  if ticket == '' then
    return {-blocked, 0}
  end
  if order == 0 then
    order = issue(counter, time)
  end
  for i = 1, blocked do
    redis.call('ZADD', KEYS[n + i], order, ticket)
    redis.call('ZADD', KEYS[2 * n + i], now + ticketLease, ticket)
    keep(KEYS[n + i], ticketLease)
    keep(KEYS[2 * n + i], ticketLease)
  end
  local told = leave(n, blocked + 1, n, ticket, skip)
  if #told > 0 then
    redis.call('PUBLISH', channel, table.concat(told))
  end
  return {-blocked, order}
end
