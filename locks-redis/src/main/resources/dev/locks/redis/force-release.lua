-- Deletes whatever lock holds KEYS[1], and tells every node.
-- ARGV[1]: the release channel; ARGV[2]: the message (the key without prefix, as release.lua encodes it).
-- Returns 1 when there was a lock, else 0.
if redis.call('DEL', KEYS[1]) == 1 then
  redis.call('PUBLISH', ARGV[1], ARGV[2])
  return 1
end
return 0
