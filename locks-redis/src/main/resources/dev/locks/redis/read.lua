-- Reads locks as operations show them, against the server's clock.
-- KEYS[1..n]: the lock keys.
-- Returns {now, lock(KEYS[1]), ..., lock(KEYS[n])}: now in microseconds since the epoch; each lock
-- {owner id, owner description, token, acquired at (microseconds), remaining lease in ms (-1: none, or an
-- infinite lock timeout, which its node holds under a renewed lease)},
-- or nil when the key holds no lock (released or expired since it was listed, or not a lock).
local now = redis.call('TIME')
local result = {now[1] .. string.format('%06d', now[2])}
for i = 1, #KEYS do
  local lock = false
  if redis.call('TYPE', KEYS[i]).ok == 'hash' then
    local fields = redis.call('HMGET', KEYS[i], 'owner', 'desc', 'token', 'at', 'infinite')
    if fields[1] then
      local left = -1
      if not fields[5] then
        left = redis.call('PTTL', KEYS[i])
      end
      lock = {fields[1], fields[2] or '', fields[3] or '0', fields[4] or '0', left}
    end
  end
  result[i + 1] = lock
end
return result
