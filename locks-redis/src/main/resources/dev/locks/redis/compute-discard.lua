-- Removes a value that could not be read, unless another computation replaced it meanwhile.
-- KEYS[1]: the value; ARGV[1]: the bytes that could not be read. Returns 1 if removed, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
