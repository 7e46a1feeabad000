-- Deletes each lock key its given owner still holds (one MGET reads them all, one DEL deletes them), then tells
-- the waiting nodes with one publish.
-- KEYS[1..n]: the lock keys; KEYS[n + 1..2n]: their wait queues; KEYS[2n + 1..3n]: the queues' deadlines.
-- ARGV[1]: the release channel; ARGV[2]: the byte length of the lock keys' storage prefix;
-- ARGV[2 + i]: the owner id that must hold KEYS[i].
-- Publishes the released keys that someone waits for (a live ticket in their queue; expired ones are dropped
-- here), without the prefix, each as "<byte length>:<key>", concatenated; a release nobody waits for publishes
-- nothing.
-- Returns the indexes i of the keys their owner no longer held.
local n = #KEYS / 3
local skip = tonumber(ARGV[2]) + 1
local values = overKeys('MGET', KEYS, 1, n)
local lost, mine, locks, queues = {}, {}, {}, {}
for i = 1, n do
  if ownedBy(values[i], ARGV[i + 2]) then
    mine[#mine + 1] = i
    locks[#locks + 1] = KEYS[i]
    queues[#queues + 1] = KEYS[n + i]
  else
    lost[#lost + 1] = i
  end
end
if #mine == 0 then
  return lost
end
overKeys('DEL', locks, 1, #locks)
-- The common case in one command: nobody waits for a released key (no queue: nothing to purge or tell).
if overKeys('EXISTS', queues, 1, #queues) == 0 then
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
