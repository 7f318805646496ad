-- release.lua: undo one Lock of an owner's hold; the last one frees the
-- lock and wakes the first waiter in line.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns the owner's remaining hold count: 0 when the lock was freed (the
-- key is deleted, expired queue entries are evicted and '1' is published
-- on the own channel of the new head of the queue, and only there), n > 0
-- when the owner still holds it. A retry of an Unlock that already took
-- effect returns the same answer again instead of releasing twice. Returns
-- -1 when this hold is not there: it expired or was removed, or a newer
-- hold took its place. A WRONGKIND error when another kind holds the name.
return hold_release_all(KEYS[1], KEYS[3], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), function()
  hand_on(KEYS[4], KEYS[5], ARGV[5])
end, 'fair')
