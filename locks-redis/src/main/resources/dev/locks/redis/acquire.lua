-- Takes every lock key for one owner, or none, and issues the fencing token.
-- KEYS[1..n]: the lock keys (sorted, distinct); KEYS[n + 1..2n]: their wait marks; KEYS[2n + 1]: the fencing
-- counter.
-- ARGV[1]: owner id; ARGV[2]: owner description; ARGV[3]: lease in milliseconds, 0 for no expiry.
-- Returns the token (> 0), or -i when KEYS[i] is held (an expired lease no longer exists). A key found held
-- gets its wait mark, so that its release tells the waiting nodes (a release nobody waits for publishes
-- nothing); the mark lasts as long as the lock, and at least a minute.
local n = (#KEYS - 1) / 2
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    local left = redis.call('PTTL', KEYS[i])
    if left < 0 then
      redis.call('SET', KEYS[n + i], '1')
    else
      redis.call('SET', KEYS[n + i], '1', 'PX', math.max(left, 60000))
    end
    return -i
  end
end
local now = redis.call('TIME')
local at = now[1] .. string.format('%06d', now[2])
local token = redis.call('INCR', KEYS[2 * n + 1])
if token == 1 then
  -- A new counter, or one lost with the server's data: start from the server's clock in microseconds, so
  -- that tokens stay above every token issued before the loss.
  token = tonumber(at)
  redis.call('SET', KEYS[2 * n + 1], at)
end
local lease = tonumber(ARGV[3])
for i = 1, n do
  redis.call('HSET', KEYS[i], 'owner', ARGV[1], 'desc', ARGV[2], 'token', token, 'at', at)
  if lease > 0 then
    redis.call('PEXPIRE', KEYS[i], lease)
  end
end
return token
