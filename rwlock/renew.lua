-- renew.lua: extend the lease of one hold, read or write, if it is there.
--
-- KEYS[1]  lock hash, KEYS[2] lease set, as in common.lua: the keys a live
--          hold keeps, and no other, so that a renewal runs while the
--          lock's Cluster slot moves to another master (the nodes refuse a
--          script that names a key they do not have until the move ends)
-- ARGV[1]  hold: OWNER:w or OWNER:r
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  lease in ms; 0 to verify a fixed lease, changing nothing
--
-- Only this hold's deadline moves (never earlier), after the holds whose
-- lease ended are dropped; the lock then expires with its latest lease.
-- Returns 1 when the lease was extended (or, verified, the hold is
-- there), 0 when the hold is gone (its lease ended before this renewal,
-- or it was removed or replaced). A hold whose lease ended is left to the
-- next script that changes the lock: dropping it might delete both keys,
-- which a script on a moving slot may then not touch. A WRONGKIND error
-- when another kind holds the name.
local bad = wrong_kind(HASH, KIND)
if bad then
  return bad
end
local h = ARGV[1]
if lease_ended(redis.call('zscore', LEASES, h), NOW) or not hold_live(HASH, h, ARGV[2]) then
  return 0
end
local ms = tonumber(ARGV[3])
if ms == 0 then
  return 1
end
-- The keys' expiries go first, set to what they are if that is later
-- (settle sets them to the latest lease below): a server whose memory is
-- full refuses the ZADD of lease only to a script that has written
-- nothing yet.
for _, key in ipairs({HASH, LEASES}) do
  redis.call('pexpire', key, math.max(redis.call('pttl', key), ms))
end
-- This hold's lease is live, so dropping the ended ones keeps both keys.
drop_ended()
lease(h, ms)
settle()
return 1
