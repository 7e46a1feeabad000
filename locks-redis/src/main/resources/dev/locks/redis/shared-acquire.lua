-- Takes every lock key for one owner as one of its shared holders (a read lock) or one of its permits (a counted
-- lock), or none, and issues the fencing token; a caller that waits its turn keeps a ticket in the wait queue of
-- each key, exactly as acquire.lua does (SPEC 13: a waiting exclusive acquirer blocks newer shared ones).
-- KEYS and ARGV[1..11]: as acquire.lua's; ARGV[12]: the permits, '-1' for shared.
-- A key held this way is a sorted set at the lock key instead of acquire.lua's string: one member per holder,
-- "<permits>|<lock value>" (lock-value.lua), scored by its expiry in server milliseconds; the key itself expires
-- with its last member. An exclusive acquire meets the key as held (EXISTS), a shared one meets an exclusive
-- lock (a string) as held.
-- The keys are taken unless one is held exclusive, all its permits are taken, or a live ticket older than the
-- caller's (any live ticket, for a caller without one) waits for it; expired members and tickets are dropped on
-- the way.
-- Returns {token} (> 0); {-b, order} when blocked at KEYS[b] (order 0 without a ticket); {-b, 0, held} when
-- KEYS[b] is held with another number of permits `held` (-1 shared, 1 exclusive): nothing taken, no ticket placed.
local n = (#KEYS - 1) / 3
local counter = KEYS[3 * n + 1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local at = time[1] .. string.format('%06d', time[2])
local ticket = ARGV[5]
local order = tonumber(ARGV[6])
local permits = tonumber(ARGV[12])

local blocked, held = 0, 0
for i = 1, n do
  purge(n, i, now)
  local kind = redis.call('TYPE', KEYS[i])['ok']
  if kind == 'zset' then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    local first = redis.call('ZRANGE', KEYS[i], 0, 0)
    if #first > 0 then
      local mode = tonumber(string.match(first[1], '^(-?%d+)|'))
      if mode ~= permits then
        held = mode
        blocked = i
        break
      end
      if permits > 0 and redis.call('ZCARD', KEYS[i]) >= permits then
        blocked = i
        break
      end
    end
  elseif kind ~= 'none' then
    if permits > 0 then
      held = 1
    end
    blocked = i
    break
  end
  if olderWaits(n, i, ticket, order) then
    blocked = i
    break
  end
end

if blocked == 0 then
  local token = leaseToken(counter, time, at)
  local member = ARGV[12] .. '|' .. lockValue(ARGV[1], token, at, ARGV[4], ARGV[2])
  local lease = tonumber(ARGV[3])
  for i = 1, n do
    redis.call('ZADD', KEYS[i], now + lease, member)
    keep(KEYS[i], lease)
    if ticket ~= '' then
      redis.call('ZREM', KEYS[n + i], ticket)
      redis.call('ZREM', KEYS[2 * n + i], ticket)
    end
  end
  return {token}
end

if held ~= 0 then
  return {-blocked, 0, held}
end
return queueBlocked(n, blocked, ticket, order, counter, time, now, tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]) + 1)
