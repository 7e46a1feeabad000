-- On a Redis Cluster, the last step of a lease taken over several slots: it got its token from its last slot,
-- and this raises an earlier slot's fencing counter to it, so that whoever takes one of the lease's keys
-- there later gets a greater token (SPEC 3), and gives the lease's locks there their token.
-- KEYS[1]: the slot's fencing counter; KEYS[2..n + 1]: the lease's lock keys in that slot.
-- ARGV[1]: the token; ARGV[2]: the owner id.
-- Returns the number of the lock keys the owner still holds.
local token = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < token then
  redis.call('SET', KEYS[1], ARGV[1])
end
local held = 0
local values = overKeys('MGET', KEYS, 2, #KEYS)
for i = 2, #KEYS do
  if ownedBy(values[i - 1], ARGV[2]) then
    local lock = lockFields(values[i - 1])
    redis.call('SET', KEYS[i], lockValue(lock[1], token, lock[3], lock[4], lock[5]), 'KEEPTTL')
    held = held + 1
  end
end
return held
