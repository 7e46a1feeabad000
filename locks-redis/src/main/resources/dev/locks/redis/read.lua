-- Reads locks as operations show them, against the server's clock.
-- KEYS[1..n]: the lock keys.
-- Returns {now, lock(KEYS[1]), ..., lock(KEYS[n])}: now in microseconds since the epoch; each lock
-- {owner id, owner description, token, acquired at (microseconds), remaining lease in ms (-1: none, or an
-- infinite lock timeout, which its node holds under a renewed lease)},
-- or nil when the key holds no lock (released or expired since it was listed, or not a lock).
local now = redis.call('TIME')
local result = {now[1] .. string.format('%06d', now[2])}
local values = overKeys('MGET', KEYS, 1, #KEYS)
for i = 1, #KEYS do
  local lock = lockFields(values[i])
  if lock then
    local left = -1
    if lock[4] == '0' then
      left = redis.call('PTTL', KEYS[i])
    end
    lock = {lock[1], lock[5], lock[2], lock[3], left}
  else
    lock = false
  end
  result[i + 1] = lock
end
return result
