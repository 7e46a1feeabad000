-- Shared by the scripts that read or write locks (prepended to them by LockScripts). A lock is one string per
-- held key, set with its lease (SET PX): "<byte length of the owner id>:<owner id><token> <acquired at,
-- microseconds> <'1' for an infinite lock timeout, else '0'> <owner description>". One string, not a hash: a
-- lock is written with its lease by one command, and several are read by one MGET.

-- The value of a lock.
local function lockValue(owner, token, at, infinite, description)
  return #owner .. ':' .. owner .. string.format('%.0f', token) .. ' ' .. at .. ' ' .. infinite .. ' ' .. description
end

-- Whether `value` (a GET or MGET reply: false for no key, or a key that is not a string) is a lock of `owner`.
local function ownedBy(value, owner)
  local prefix = #owner .. ':' .. owner
  return value and string.sub(value, 1, #prefix) == prefix -- the length makes the prefix unique to the owner
end

-- A lock's fields {owner, token, at, infinite, description}, or nil when `value` is not a lock.
local function lockFields(value)
  if not value then
    return nil
  end
  local length, from = string.match(value, '^(%d+):()')
  if not length then
    return nil
  end
  local to = from + tonumber(length)
  local token, at, infinite, rest = string.match(value, '^(%d+) (%d+) ([01]) ()', to)
  if not token then
    return nil
  end
  return {string.sub(value, from, to - 1), token, at, infinite, string.sub(value, rest)}
end

-- redis.call(command, keys[from..to]...), in chunks that Lua's unpack can take: the sum of the integer replies
-- (EXISTS, DEL) or, for MGET, the replies in one list.
local function overKeys(command, keys, from, to)
  local sum, list = 0, {}
  local i = from
  while i <= to do
    local last = math.min(i + 999, to)
    local reply = redis.call(command, unpack(keys, i, last))
    if type(reply) == 'table' then
      for j = 1, #reply do
        list[#list + 1] = reply[j]
      end
    else
      sum = sum + reply
    end
    i = last + 1
  end
  if command == 'MGET' then
    return list
  end
  return sum
end

