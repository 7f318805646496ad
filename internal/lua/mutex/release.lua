-- release.lua: undo one Lock of an owner's hold; the last one frees the lock.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  the lock's channel; empty for none
-- ARGV[6]  optional: the channel of those who follow who holds the lock,
--          told when it is freed (see the prelude's vacate)
--
-- Returns the owner's remaining hold count: 0 when the lock was freed (the
-- key is deleted and one waiting process woken: see the prelude's wake;
-- and ARGV[6] is told), n > 0 when the owner still holds it. A retry of
-- an Unlock that already took effect returns the same answer again
-- instead of releasing twice.
-- Returns -1 when this hold is not there: it expired or was removed, or a
-- newer hold took its place.
return hold_release_all(KEYS[1], KEYS[3], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), function()
  wake(KEYS[4], KEYS[5], ARGV[5])
  vacate(ARGV[6])
end)
