-- Places a waiter's ticket in the wait queues of keys, or refreshes it there (its order kept), without trying
-- to take them: the waiter waits in its own node's memory meanwhile, or has waited long.
-- KEYS[1..n]: the wait queues; KEYS[n + 1..2n]: their deadlines; KEYS[2n + 1]: the fencing counter, which
-- orders the tickets.
-- ARGV[1]: the ticket id; ARGV[2]: its order, 0 for a new one; ARGV[3]: the ticket's lease in milliseconds.
-- Returns the ticket's order.
local n = (#KEYS - 1) / 2
local counter = KEYS[2 * n + 1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local order = tonumber(ARGV[2])
if order == 0 then
  order = issue(counter, time)
end
local lease = tonumber(ARGV[3])
for i = 1, n do
  redis.call('ZADD', KEYS[i], order, ARGV[1])
  redis.call('ZADD', KEYS[n + i], now + lease, ARGV[1])
  keep(KEYS[i], lease)
  keep(KEYS[n + i], lease)
end
return order
