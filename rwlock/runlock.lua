-- runlock.lua: undo one RLock of an owner's read hold; the last one ends it.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the owner's read hold OWNER:r
-- ARGV[2]  fencing token of the read hold being released
-- ARGV[3]  unlock id: the same for every retry of one RUnlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  writers' channel PREFIX:{NAME}:wch
-- ARGV[6]  how long a freed lock is handed off to the waiting writers, in
--          ms
--
-- Returns the owner's remaining read hold count: 0 when the read hold
-- ended; if that freed the lock (the last reader left), one waiting writer
-- per process is woken ('1' on ARGV[5]), and if a writer claimed the lock
-- it is handed off to the writers for ARGV[6] ms (see hand_off in
-- common.lua). n > 0 when the owner still holds it. A retry of an RUnlock
-- that already took effect returns the same answer again. Returns -1 when
-- the hold is not there: its lease ended, it was removed, or a newer hold
-- took its place. A WRONGKIND error when another kind holds the name.
local bad, first = begin()
if bad then
  return bad
end
local was_claimed = claimed()
local count, _, free = release(first)
if free then
  freed(was_claimed, tonumber(ARGV[6]), ARGV[5])
end
return count
