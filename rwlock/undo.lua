-- undo.lua: after an acquire whose reply was lost, cut the owner's hold
-- back to what the caller knows it holds.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  hold: OWNER:w or OWNER:r
-- ARGV[2]  fencing token of the hold the caller knows of; 0 for none.
--          With ARGV[3] = -1 (an owner id several lock values share),
--          the attempt id of the acquire to undo: see the prelude's
--          hold_undo
-- ARGV[3]  hold count the caller knows of; 0 for none; -1 as above
-- ARGV[4]  attempt id of the acquire to undo: marked undone when the hold
--          does not list it (see the prelude's undone)
-- ARGV[5]  readers' channel PREFIX:{NAME}:ch
-- ARGV[6]  writers' channel PREFIX:{NAME}:wch
-- ARGV[7]  how long a lock freed by a dropped read hold is handed off to
--          the waiting writers, in ms
--
-- If the hold is there with the known token, its count is set back to the
-- known count. If it is a hold the caller does not know of, it is dropped
-- and whoever it kept out is woken: for a write hold every waiting reader
-- ('*' on ARGV[5]) and one waiting writer per process ('1' on ARGV[6]);
-- for a read hold that was the last hold, one waiting writer per process,
-- and the lock is handed off as by the last RUnlock (see runlock.lua).
-- Waiting writers' intents are kept: they still wait.
--
-- Returns 1 when a hold was cut back or dropped, 0 when there was nothing
-- to undo. A WRONGKIND error when another kind holds the name.
local bad = begin()
if bad then
  return bad
end
local h = ARGV[1]
local was_claimed = claimed()
local done = hold_undo(HASH, h, ARGV[2], tonumber(ARGV[3]), RELEASED, ARGV[4])
if done == 'drop' then
  forget(h)
  local held = settle()
  if is_write(h) then
    publish(ARGV[5], '*')
    wake_writer(ARGV[6])
  elseif not held then
    freed(was_claimed, tonumber(ARGV[7]), ARGV[6])
  end
end
return done and 1 or 0
