-- Takes every lock key for one owner, or none, and issues the fencing token; a caller that waits its turn
-- keeps a ticket in the wait queue of each key (SPEC "No starvation").
-- KEYS[1..n]: the lock keys (sorted, distinct); KEYS[n + 1..2n]: their wait queues (sorted sets: ticket id by
-- order); KEYS[2n + 1..3n]: the queues' deadlines (sorted sets: ticket id by expiry, server milliseconds);
-- KEYS[3n + 1]: the fencing counter, which also orders the tickets.
-- ARGV[1]: owner id; ARGV[2]: owner description; ARGV[3]: lease in milliseconds (> 0); ARGV[4]: '1' when the
-- lock timeout is infinite (the lease is then renewed by the node); ARGV[5]: the caller's ticket id, '' for a
-- caller that does not wait; ARGV[6]: its order, 0 until placed; ARGV[7]: the ticket's lease in milliseconds;
-- ARGV[8]: the release channel; ARGV[9]: the byte length of the lock keys' storage prefix; ARGV[10]: the floor
-- of the token, '0' for none (on a Redis Cluster, the token of the lease's earlier slots: see issue());
-- ARGV[11]: '1' for a token of at least the server's clock in microseconds (always but for a Cluster lease's later
-- slots: a failover to a replica can lose the counter's last increments, on one server with a replica as on a
-- Cluster; the token then still goes forward with the clock).
-- Each lock is one string (lock-value.lua) set with its lease.
-- The keys are taken unless one is held or a live ticket older than the caller's (any live ticket, for a caller
-- without one) waits for it; expired tickets are dropped on the way. Taken: the ticket leaves every queue of
-- the keys. Not taken at KEYS[b], with a ticket: it is placed (order kept) in the queues of KEYS[1..b] and
-- taken out of the later ones, whose next waiters are told.
-- Returns {token} (> 0), or {-b, order} (order 0 without a ticket).
local n = (#KEYS - 1) / 3
local counter = KEYS[3 * n + 1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local at = time[1] .. string.format('%06d', time[2])
local ticket = ARGV[5]
local order = tonumber(ARGV[6])

local blocked = 0
-- The common case in one command: no key held and nobody waiting for any (no queue: none to purge, and none
-- the caller's ticket is in, since a queue and its deadlines always hold the same tickets).
local busy = overKeys('EXISTS', KEYS, 1, 2 * n) > 0
if busy then
  for i = 1, n do
    purge(n, i, now)
    if redis.call('EXISTS', KEYS[i]) == 1 or olderWaits(n, i, ticket, order) then
      blocked = i
      break
    end
  end
end

if blocked == 0 then
  local token = leaseToken(counter, time, at)
  local value = lockValue(ARGV[1], token, at, ARGV[4], ARGV[2])
  for i = 1, n do
    redis.call('SET', KEYS[i], value, 'PX', ARGV[3])
    if ticket ~= '' and busy then
      redis.call('ZREM', KEYS[n + i], ticket)
      redis.call('ZREM', KEYS[2 * n + i], ticket)
    end
  end
  return {token}
end

return queueBlocked(n, blocked, ticket, order, counter, time, now, tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]) + 1)
