-- Removes a key's value and takes the miss in flight out of the way, in one step: a caller that claims after
-- this starts a new miss, while the old one goes on for its computers and waiters, and its completion stores
-- nothing (compute-complete.lua finds it under KEYS[3]).
-- KEYS[1]: the value; KEYS[2]: the miss record; KEYS[3]: the record of the key's invalidated miss;
-- KEYS[4..6]: the value's write time, its stale copy and the key's error back-off (compute-complete.lua), removed
--   with it.
-- ARGV[1]: the channel; ARGV[2]: the notice to publish (other nodes start new misses for later callers).
-- Returns 1 if a miss was in flight, else 0.
redis.call('DEL', KEYS[1], KEYS[4], KEYS[5], KEYS[6])
if redis.call('HGET', KEYS[2], 'state') ~= 'computing' then
  return 0
end
redis.call('RENAME', KEYS[2], KEYS[3]) -- with its expiry: the compute lock of its current computer
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
