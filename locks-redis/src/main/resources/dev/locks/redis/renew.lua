-- Extends the lease of each lock key its given owner still holds.
-- KEYS[1..n]: the lock keys.
-- ARGV[2i - 1]: the owner id that must hold KEYS[i]; ARGV[2i]: its new lease in milliseconds, 0 for no expiry.
-- Returns the indexes i of the keys their owner no longer held.
local lost = {}
local values = overKeys('MGET', KEYS, 1, #KEYS)
for i = 1, #KEYS do
  if ownedBy(values[i], ARGV[2 * i - 1]) then
    local lease = tonumber(ARGV[2 * i])
    if lease > 0 then
      redis.call('PEXPIRE', KEYS[i], lease)
    else
      redis.call('PERSIST', KEYS[i])
    end
  else
    lost[#lost + 1] = i
  end
end
return lost
