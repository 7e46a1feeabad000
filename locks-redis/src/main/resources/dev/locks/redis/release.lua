-- Deletes each lock key its given owner still holds, then tells every node with one publish.
-- KEYS[1..n]: the lock keys.
-- ARGV[1]: the release channel; ARGV[2]: the byte length of the lock keys' storage prefix;
-- ARGV[2 + i]: the owner id that must hold KEYS[i].
-- Publishes the released keys without the prefix, each as "<byte length>:<key>", concatenated.
-- Returns the indexes i of the keys their owner no longer held.
local skip = tonumber(ARGV[2]) + 1
local lost = {}
local released = {}
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'owner') == ARGV[i + 2] then
    redis.call('DEL', KEYS[i])
    local key = string.sub(KEYS[i], skip)
    released[#released + 1] = #key .. ':' .. key
  else
    lost[#lost + 1] = i
  end
end
if #released > 0 then
  redis.call('PUBLISH', ARGV[1], table.concat(released))
end
return lost
