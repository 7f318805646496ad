-- unlock.lua: undo one Lock of an owner's write hold; the last one ends it.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the owner's write hold OWNER:w
-- ARGV[2]  fencing token of the write hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  readers' channel PREFIX:{NAME}:ch
-- ARGV[6]  writers' channel PREFIX:{NAME}:wch
-- ARGV[7]  how long the readers' turn after a downgrade lasts, in ms
--
-- Returns the owner's remaining write hold count. 0: the write hold ended.
-- The lock is free, or read-locked by the owner's own read hold (a
-- downgrade). Every waiting writer's intent is cleared, so the readers held
-- back get their turn before the next writer. Every waiting reader is woken
-- ('*' on ARGV[5]), and so is one waiting writer (see wake_writer in
-- common.lua), which takes the lock or registers its intent again. After a
-- downgrade the readers' intent-free turn lasts ARGV[7] ms (see read_turn
-- in common.lua), so that the writer's intent registered again does not
-- keep out the readers woken with it.
-- n > 0: the owner still holds the write lock.
-- A retry of an Unlock that already took effect returns the same answer
-- again instead of releasing twice. Returns -1 when the hold is not there:
-- its lease ended, it was removed, or a newer hold took its place.
-- A WRONGKIND error when another kind holds the name.
local bad, first = begin(true)
if bad then
  return bad
end
local count, ended, free = release(first, WRITERS)
if not ended then
  drop_lapsed()
  return count
end
if not free then
  read_turn(tonumber(ARGV[7]))
end
publish(ARGV[5], '*')
wake_writer(ARGV[6])
return count
