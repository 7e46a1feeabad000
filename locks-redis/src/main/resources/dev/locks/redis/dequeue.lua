-- Takes a waiter's ticket out of the wait queues of keys: it gave up. A queue it leaves empty is gone with it;
-- the next waiters of a free key are told, since the key may now be theirs.
-- KEYS[1..n]: the lock keys; KEYS[n + 1..2n]: their wait queues; KEYS[2n + 1..3n]: the queues' deadlines.
-- ARGV[1]: the ticket id; ARGV[2]: the release channel; ARGV[3]: the byte length of the lock keys' prefix.
local n = #KEYS / 3
local told = leave(n, 1, n, ARGV[1], tonumber(ARGV[3]) + 1)
if #told > 0 then
  redis.call('PUBLISH', ARGV[2], table.concat(told))
end
return #told
