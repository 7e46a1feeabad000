-- Takes each given owner's place (shared-acquire.lua) out of its lock key, the other holders keeping theirs, and
-- tells the waiting nodes with one publish, as release.lua does: a freed place (a permit) may be a waiter's now.
-- KEYS[1..n]: the lock keys; KEYS[n + 1..2n]: their wait queues; KEYS[2n + 1..3n]: the queues' deadlines.
-- ARGV[1]: the release channel; ARGV[2]: the byte length of the lock keys' storage prefix;
-- ARGV[2 + i]: the owner id whose place in KEYS[i] is released.
-- Expired members are dropped on the way, and the key's expiry follows its latest member's.
-- Returns the indexes i of the keys on which their owner no longer held a place (expired, or forced out).
local n = #KEYS / 3
local skip = tonumber(ARGV[2]) + 1
local now = nowMillis()
local lost, released = {}, {}
for i = 1, n do
  local found = false
  if redis.call('TYPE', KEYS[i])['ok'] == 'zset' then
    local members = redis.call('ZRANGE', KEYS[i], 0, -1, 'WITHSCORES')
    for j = 1, #members, 2 do
      if ownedBy(string.match(members[j], '^-?%d+|(.*)$'), ARGV[2 + i]) then
        redis.call('ZREM', KEYS[i], members[j])
        found = tonumber(members[j + 1]) > now
        break
      end
    end
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
    if #last > 0 then
      redis.call('PEXPIREAT', KEYS[i], last[2])
    end
  end
  if found then
    purge(n, i, now)
    if redis.call('EXISTS', KEYS[n + i]) == 1 then
      local key = string.sub(KEYS[i], skip)
      released[#released + 1] = #key .. ':' .. key
    end
  else
    lost[#lost + 1] = i
  end
end
if #released > 0 then
  redis.call('PUBLISH', ARGV[1], table.concat(released))
end
return lost
