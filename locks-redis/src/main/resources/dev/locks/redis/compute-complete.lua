-- Settles a miss with its first successful completion, from any of its computers (the current one or one
-- whose turn timed out): stores the value unless the result is null, marks the miss done and tells every node.
-- A miss whose key was invalidated while it ran (compute-invalidate.lua) is settled the same way but stores
-- nothing: its value stays in its own record for the grace period, for the waiters on other nodes. So does a
-- stored value whose TTL is shorter than the grace period, for a waiter that reads it only after it expired.
-- KEYS[1]: the value; KEYS[2]: the miss record; KEYS[3]: the record of the key's invalidated miss;
-- KEYS[4]: the value's write time, its lifetime in ms (the TTL, or ARGV[10] for none) expiring after as long, so
--   that its age is that lifetime less its PTTL; KEYS[5]: its stale copy, expiring ARGV[9] ms after the value;
-- KEYS[6]: the key's error back-off, which a stored value ends.
-- ARGV[1]: the miss id; ARGV[2]: 'value' or 'null'; ARGV[3]: the serialized value ('' for null);
-- ARGV[4]: the TTL (ms; 0 for none; -1 for the TTL the miss began with); ARGV[5]: how long the done record
-- stays (ms); ARGV[6]: the channel; ARGV[7]: the notice to publish; ARGV[8]: the notice of an invalidated miss;
-- ARGV[9]: the stale window (ms), '-1' to keep no write time nor stale copy; ARGV[10]: the lifetime of the write
-- time of a value without TTL (ms).
-- Returns 1 if this completion settled the miss and stored its value; 2 if it settled an invalidated miss
-- (nothing stored); 0, changing nothing, if the miss is over or unknown.
local miss = redis.call('HMGET', KEYS[2], 'miss', 'state', 'ttl')
if miss[1] ~= ARGV[1] or miss[2] ~= 'computing' then
  local old = redis.call('HMGET', KEYS[3], 'miss', 'state')
  if old[1] ~= ARGV[1] or old[2] ~= 'computing' then
    return 0
  end
  redis.call('HSET', KEYS[3], 'state', 'done', 'outcome', ARGV[2], 'value', ARGV[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  redis.call('PUBLISH', ARGV[6], ARGV[8])
  return 2
end
local kept = false
if ARGV[2] == 'value' then
  local ttl = tonumber(ARGV[4])
  if ttl < 0 then
    ttl = tonumber(miss[3])
  end
  kept = ttl > 0 and ttl < tonumber(ARGV[5])
  if ttl > 0 then
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
  else
    redis.call('SET', KEYS[1], ARGV[3])
  end
  local stale = tonumber(ARGV[9])
  if stale < 0 then
    redis.call('DEL', KEYS[4], KEYS[5])
  else
    local lifetime = ttl > 0 and ttl or tonumber(ARGV[10])
    redis.call('SET', KEYS[4], lifetime, 'PX', lifetime)
    if stale > 0 and ttl > 0 then
      redis.call('SET', KEYS[5], ARGV[3], 'PX', ttl + stale)
    else
      redis.call('DEL', KEYS[5])
    end
  end
  redis.call('DEL', KEYS[6])
end
if kept then
  redis.call('HSET', KEYS[2], 'state', 'done', 'outcome', ARGV[2], 'value', ARGV[3])
else
  redis.call('HSET', KEYS[2], 'state', 'done', 'outcome', ARGV[2])
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1
