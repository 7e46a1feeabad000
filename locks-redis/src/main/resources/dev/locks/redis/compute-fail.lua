-- Ends a miss with its current computer's failure: stores nothing, marks the miss done and tells every node.
-- KEYS[1]: the miss record; KEYS[2]: the record of the key's invalidated miss (compute-invalidate.lua), which
-- fails the same way.
-- ARGV[1]: the miss id; ARGV[2]: the computer id, which must be the current one; ARGV[3]: the exception's
-- class name; ARGV[4]: '1' if it has a message, else '0'; ARGV[5]: the message; ARGV[6]: how long the done
-- record stays (ms); ARGV[7]: the channel; ARGV[8]: the notice to publish.
-- Returns 1 if the miss ended; 0, changing nothing, for a computer whose turn timed out or a miss that is over.
local record = KEYS[1]
local miss = redis.call('HMGET', record, 'miss', 'computer', 'state')
if miss[1] ~= ARGV[1] then
  record = KEYS[2]
  miss = redis.call('HMGET', record, 'miss', 'computer', 'state')
end
if miss[1] ~= ARGV[1] or miss[2] ~= ARGV[2] or miss[3] ~= 'computing' then
  return 0
end
redis.call('HSET', record, 'state', 'done', 'outcome', 'failed', 'class', ARGV[3])
if ARGV[4] == '1' then
  redis.call('HSET', record, 'message', ARGV[5])
end
redis.call('PEXPIRE', record, ARGV[6])
redis.call('PUBLISH', ARGV[7], ARGV[8])
return 1
