-- Deletes each lock key its given owner still holds (one MGET reads them all, one DEL deletes them), then tells
-- the waiting nodes with one publish; a key released before its hold-at-least time stays locked until then.
-- KEYS[1..n]: the lock keys; KEYS[n + 1..2n]: their wait queues; KEYS[2n + 1..3n]: the queues' deadlines.
-- ARGV[1]: the release channel; ARGV[2]: the byte length of the lock keys' storage prefix;
-- ARGV[2 + i]: the owner id that must hold KEYS[i];
-- ARGV[2 + n + i], when given (a release with holds): how many milliseconds after its acquire time KEYS[i] stays
-- locked, '0' for none. Such a key, earlier by the server's clock, is held over: rewritten for its owner id with
-- the suffix '~held' (so that its owner's renewals find it lost, while a later release with holds still reaches
-- it) with that time as its expiry (no infinite mark: it expires by itself); a key of a release with holds that
-- is gone (it expired, held over) is told to its waiters like a released one.
-- Publishes the released keys that someone waits for (a live ticket in their queue; expired ones are dropped
-- here), without the prefix, each as "<byte length>:<key>", concatenated; a release nobody waits for publishes
-- nothing.
-- Returns the indexes i of the keys their owner no longer held; with holds, pairs {i, ms}: ms > 0 for a key held
-- over that long, 0 for a key its owner no longer held.
local n = #KEYS / 3
local skip = tonumber(ARGV[2]) + 1
local holding = #ARGV == 2 + 2 * n
local values = overKeys('MGET', KEYS, 1, n)
local lost, mine, locks, queues, told = {}, {}, {}, {}, {}
local nowMicros
for i = 1, n do
  local owner = ARGV[i + 2]
  if ownedBy(values[i], owner) or (holding and ownedBy(values[i], owner .. '~held')) then
    local left = 0
    local lock
    if holding and ARGV[n + 2 + i] ~= '0' then
      if not nowMicros then
        local time = redis.call('TIME')
        nowMicros = tonumber(time[1]) * 1000000 + tonumber(time[2])
      end
      lock = lockFields(values[i])
      left = tonumber(lock[3]) + tonumber(ARGV[n + 2 + i]) * 1000 - nowMicros
    end
    if left > 0 then
      local ms = math.ceil(left / 1000)
      redis.call('SET', KEYS[i], lockValue(owner .. '~held', lock[2], lock[3], '0', lock[5]), 'PX', ms)
      lost[#lost + 1] = i
      lost[#lost + 1] = ms
    else
      mine[#mine + 1] = i
      locks[#locks + 1] = KEYS[i]
      queues[#queues + 1] = KEYS[n + i]
    end
  else
    lost[#lost + 1] = i
    if holding then
      lost[#lost + 1] = 0
      if not values[i] then
        told[#told + 1] = i
        queues[#queues + 1] = KEYS[n + i]
      end
    end
  end
end
if #mine > 0 then
  overKeys('DEL', locks, 1, #locks)
end
for _, i in ipairs(told) do
  mine[#mine + 1] = i
end
-- The common case in one command: nobody waits for a released key (no queue: nothing to purge or tell).
if #mine == 0 or overKeys('EXISTS', queues, 1, #queues) == 0 then
  return lost
end
local now = nowMillis()
local released = {}
for _, i in ipairs(mine) do
  purge(n, i, now)
  if redis.call('EXISTS', KEYS[n + i]) == 1 then
    local key = string.sub(KEYS[i], skip)
    released[#released + 1] = #key .. ':' .. key
  end
end
if #released > 0 then
  redis.call('PUBLISH', ARGV[1], table.concat(released))
end
return lost
