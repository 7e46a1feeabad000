-- Reads a key's value for a call with refresh-ahead or stale-if-error (compute-complete.lua), in one step.
-- KEYS[1]: the value; KEYS[2]: its write time (its lifetime in ms, expiring with it); KEYS[3]: its stale copy;
-- KEYS[4]: the key's error back-off.
-- Returns {'value', value, age ms ('-1': unknown), backing off 0|1}
--       | {'stale', stale value, backing off 0|1}
--       | {'none'}.
local backoff = redis.call('EXISTS', KEYS[4])
local value = redis.call('GET', KEYS[1])
if value then
  local lifetime = redis.call('GET', KEYS[2])
  local age = -1
  if lifetime then
    age = tonumber(lifetime) - redis.call('PTTL', KEYS[2])
  end
  return {'value', value, age, backoff}
end
local stale = redis.call('GET', KEYS[3])
if stale then
  return {'stale', stale, backoff}
end
return {'none'}
