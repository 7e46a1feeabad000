-- On a Redis Cluster, the last step of a lease taken over several slots: it got its token from its last slot,
-- and this raises an earlier slot's fencing counter to it, so that whoever takes one of the lease's keys
-- there later gets a greater token (SPEC 3), and gives the lease's locks there their token.
-- KEYS[1]: the slot's fencing counter; KEYS[2..n + 1]: the lease's lock keys in that slot.
-- ARGV[1]: the token; ARGV[2]: the owner id; ARGV[3]: '1' when the lease holds its keys shared or by permits
-- (shared-acquire.lua: its place in each key's sorted set gets the token), else '0' or none.
-- Returns the number of the lock keys the owner still holds.
local token = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < token then
  redis.call('SET', KEYS[1], ARGV[1])
end
local held = 0
if ARGV[3] == '1' then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  for i = 2, #KEYS do
    if redis.call('TYPE', KEYS[i])['ok'] == 'zset' then
      local members = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. now, '+inf', 'WITHSCORES')
      for j = 1, #members, 2 do
        local permits, value = string.match(members[j], '^(-?%d+)|(.*)$')
        if ownedBy(value, ARGV[2]) then
          local lock = lockFields(value)
          redis.call('ZREM', KEYS[i], members[j])
          redis.call('ZADD', KEYS[i], members[j + 1], permits .. '|' .. lockValue(lock[1], token, lock[3], lock[4], lock[5]))
          held = held + 1
          break
        end
      end
    end
  end
  return held
end
local values = overKeys('MGET', KEYS, 2, #KEYS)
for i = 2, #KEYS do
  if ownedBy(values[i - 1], ARGV[2]) then
    local lock = lockFields(values[i - 1])
    redis.call('SET', KEYS[i], lockValue(lock[1], token, lock[3], lock[4], lock[5]), 'KEEPTTL')
    held = held + 1
  end
end
return held
