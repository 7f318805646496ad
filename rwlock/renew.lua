-- renew.lua: extend the lease of one hold, read or write, if it is there.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  hold: OWNER:w or OWNER:r
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  lease in ms
--
-- Only this hold's deadline moves (never earlier); the lock then expires
-- with its latest lease. Returns 1 when the lease was extended, 0 when the
-- hold is gone (its lease ended before this renewal, or it was removed or
-- replaced). A WRONGKIND error when another kind holds the name.
local bad = begin()
if bad then
  return bad
end
if hold_live(HASH, ARGV[1], ARGV[2]) then
  lease(ARGV[1], tonumber(ARGV[3]))
  settle()
  return 1
end
return 0
