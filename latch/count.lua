-- count.lua: read a latch's count.
--
-- KEYS[1]  latch hash PREFIX:{NAME} (see countdown.lua)
-- ARGV[1]  kind: 'latch'
--
-- Returns the count left (0: open), or -1 when the hash does not exist:
-- nobody has counted the latch down yet, or it expired. A WRONGKIND error
-- when another kind holds the name.
local bad = wrong_kind(KEYS[1], ARGV[1])
if bad then
  return bad
end
local n = redis.call('hget', KEYS[1], 'count')
if not n then
  return -1
end
return tonumber(n)
