-- Extends the lease of each given owner's place (shared-acquire.lua) in its lock key, and the key's with it.
-- KEYS[1..n]: the lock keys.
-- ARGV[2i - 1]: the owner id whose place in KEYS[i] is renewed; ARGV[2i]: its new lease in milliseconds (> 0).
-- Returns the indexes i of the keys on which their owner no longer held a place (expired, or forced out).
local now = nowMillis()
local lost = {}
for i = 1, #KEYS do
  local found = false
  if redis.call('TYPE', KEYS[i])['ok'] == 'zset' then
    local members = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. now, '+inf')
    for j = 1, #members do
      if ownedBy(string.match(members[j], '^-?%d+|(.*)$'), ARGV[2 * i - 1]) then
        local lease = tonumber(ARGV[2 * i])
        redis.call('ZADD', KEYS[i], now + lease, members[j])
        keep(KEYS[i], lease)
        found = true
        break
      end
    end
  end
  if not found then
    lost[#lost + 1] = i
  end
end
return lost
