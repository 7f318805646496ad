-- proclaim.lua: store the new leader's value beside its hold and tell the
-- observers.
--
-- KEYS[1]  election hash PREFIX:{NAME} (see holder.lua)
-- ARGV[1]  the leader's term: its hold's fencing token
-- ARGV[2]  the leader's value
-- ARGV[3]  the observers' channel PREFIX:{NAME}:observe, on which '*' is
--          published
-- ARGV[4]  kind: 'election'
--
-- Returns 1 when the value was stored, 0 when the hold of that term is not
-- there any more (lost or released meanwhile). A WRONGKIND error when
-- another kind holds the name.
local hash = KEYS[1]
local h, bad = holder(hash, ARGV[4])
if bad then
  return bad
end
if not h or not hold_live(hash, h, ARGV[1]) then
  return 0
end
redis.call('hset', hash, ':v:' .. h, ARGV[2])
publish(ARGV[3], '*')
return 1
