-- A node's one caller of a missing key looks it up once more and, if it is still missing, becomes the
-- computer of its miss or learns whom to wait for.
-- KEYS[1]: the value; KEYS[2]: the miss record, a hash that is also the compute lock: it expires after the
--   current computer's compute timeout (PX), or a grace period after the miss is done; KEYS[3]: the record of
--   the key's invalidated miss (compute-invalidate.lua), which only the callers that waited for it still see.
-- ARGV[1]: a new computer id; ARGV[2]: its description; ARGV[3]: its compute timeout (ms);
-- ARGV[4]: a new miss id; ARGV[5]: the caller's hint; ARGV[6]: the caller's TTL (ms, 0 for none);
-- ARGV[7]: the miss the caller waited for, '' for none; ARGV[8]: the last turn it saw of that miss;
-- ARGV[9]: that miss's hint; ARGV[10]: that miss's TTL (ms); ARGV[11]: for a background refresh, the age (ms) from
--   which a stored value counts as missing, '0' for an ordinary claim.
-- KEYS[4]: the value's write time (compute-complete.lua): its lifetime in ms, expiring with it, so that its age is
--   that lifetime less its PTTL (without it a value counts as young).
-- Returns {'hit', value}
--       | {'compute', miss, turn, hint, ttl}: the caller computes (a promoted caller: the same miss, next turn)
--       | {'wait', miss, turn, hint, ttl, pttl, description, at}: another computer, whose lock ends in pttl ms
--       | {'done', outcome, class, message}: the awaited miss ended with a null result or a failure
--       | {'done', 'value', value}: the awaited miss, invalidated meanwhile, ended with this value (not stored),
--         or ended with this short-lived value, which expired before the caller read it (compute-complete.lua).
local value = redis.call('GET', KEYS[1])
if value then
  local refresh = tonumber(ARGV[11])
  local lifetime = refresh > 0 and redis.call('GET', KEYS[4])
  if not lifetime or tonumber(lifetime) - redis.call('PTTL', KEYS[4]) < refresh then
    return {'hit', value}
  end
end
if ARGV[7] ~= '' then
  local old = redis.call('HMGET', KEYS[3], 'miss', 'turn', 'hint', 'ttl', 'state', 'outcome', 'class', 'message',
    'desc', 'at', 'value')
  if old[1] == ARGV[7] then
    if old[5] == 'computing' then
      return {'wait', old[1], old[2], old[3], old[4], redis.call('PTTL', KEYS[3]), old[9], old[10]}
    end
    if old[6] == 'value' then
      return {'done', 'value', old[11]}
    end
    return {'done', old[6], old[7] or '', old[8]}
  end
end
local miss = redis.call('HMGET', KEYS[2], 'miss', 'turn', 'hint', 'ttl', 'state', 'outcome', 'class', 'message',
  'desc', 'at', 'value')

local function start(id, turn, hint, ttl)
  local now = redis.call('TIME')
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'miss', id, 'turn', turn, 'computer', ARGV[1], 'desc', ARGV[2], 'hint', hint,
    'ttl', ttl, 'state', 'computing', 'at', now[1] .. string.format('%06d', now[2]))
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return {'compute', id, tostring(turn), hint, ttl}
end

if miss[1] then
  if miss[5] == 'computing' then
    return {'wait', miss[1], miss[2], miss[3], miss[4], redis.call('PTTL', KEYS[2]), miss[9], miss[10]}
  end
  if miss[1] == ARGV[7] then
    if miss[6] ~= 'value' then
      return {'done', miss[6], miss[7] or '', miss[8]}
    end
    if miss[11] then
      return {'done', 'value', miss[11]}
    end
  end
  -- done, and its value is gone (expired, invalidated) or it is not the miss the caller waited for
elseif ARGV[7] ~= '' then
  -- the computer of the awaited miss timed out: the caller takes its turn, with the miss's first hint
  return start(ARGV[7], tonumber(ARGV[8]) + 1, ARGV[9], ARGV[10])
end
return start(ARGV[4], 0, ARGV[5], ARGV[6])
