-- leader.lua: read the current leader.
--
-- KEYS[1]  election hash PREFIX:{NAME} (see holder.lua)
-- ARGV[1]  kind: 'election'
--
-- Returns {} when nobody leads; {term, pttl} when a leader holds the lock
-- but has not proclaimed its value yet; {term, pttl, value} when it has.
-- term is the hold's fencing token (a decimal string), pttl its remaining
-- lease in ms. A WRONGKIND error when another kind holds the name.
local hash = KEYS[1]
local h, bad = holder(hash, ARGV[1])
if bad then
  return bad
end
if not h then
  return {}
end
local term = redis.call('hget', hash, ':t:' .. h)
local pttl = redis.call('pttl', hash)
local v = redis.call('hget', hash, ':v:' .. h)
if not v then
  return {term, pttl}
end
return {term, pttl, v}
