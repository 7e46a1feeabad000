-- Extends waiters' tickets where they still are, never placing one: a ticket taken out meanwhile (its waiter
-- gave up or got its keys) stays out. One node's refresh of the tickets it keeps, in one call.
-- KEYS: pairs, a wait queue (sorted set: ticket id by order) then its deadlines (sorted set: ticket id by expiry).
-- ARGV[1]: the tickets' lease in milliseconds; ARGV[1 + i]: the ticket id of the i-th pair.
-- Returns how many tickets it extended.
local now = nowMillis()
local lease = tonumber(ARGV[1])
local extended = 0
for i = 1, #KEYS / 2 do
  local queue, deadlines, ticket = KEYS[2 * i - 1], KEYS[2 * i], ARGV[1 + i]
  if redis.call('ZSCORE', queue, ticket) then
    redis.call('ZADD', deadlines, now + lease, ticket)
    keep(queue, lease)
    keep(deadlines, lease)
    extended = extended + 1
  end
end
return extended
