-- Reads locks as operations show them, against the server's clock.
-- KEYS[1..n]: the lock keys.
-- Returns {now, lock(KEYS[1]), ..., lock(KEYS[n])}: now in microseconds since the epoch; each lock
-- {owner id, owner description, token, acquired at (microseconds), remaining lease in ms (-1: none, or an
-- infinite lock timeout, which its node holds under a renewed lease)},
-- or nil when the key holds no lock (released or expired since it was listed, or not a lock); for a key held
-- shared or by permits (shared-acquire.lua), the list of its live holders' locks in that form (their remaining
-- lease always given), or nil when none is live.
local now = redis.call('TIME')
local result = {now[1] .. string.format('%06d', now[2])}
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local values = overKeys('MGET', KEYS, 1, #KEYS)
for i = 1, #KEYS do
  local lock = lockFields(values[i])
  if lock then
    local left = -1
    if lock[4] == '0' then
      left = redis.call('PTTL', KEYS[i])
    end
    lock = {lock[1], lock[5], lock[2], lock[3], left}
  elseif not values[i] and redis.call('TYPE', KEYS[i])['ok'] == 'zset' then
    local members = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. nowMs, '+inf', 'WITHSCORES')
    lock = {}
    for j = 1, #members, 2 do
      local fields = lockFields(string.match(members[j], '^-?%d+|(.*)$'))
      if fields then
        lock[#lock + 1] = {fields[1], fields[5], fields[2], fields[3], tonumber(members[j + 1]) - nowMs}
      end
    end
    if #lock == 0 then
      lock = false
    end
  else
    lock = false
  end
  result[i + 1] = lock
end
return result
