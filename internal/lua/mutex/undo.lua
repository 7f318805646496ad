-- undo.lua: after an acquire whose reply was lost, cut the owner's hold
-- back to what the caller knows it holds.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold the caller knows of; 0 for none.
--          With ARGV[3] = -1 (an owner id several lock values share),
--          the attempt id of the acquire to undo: see the prelude's
--          hold_undo
-- ARGV[3]  hold count the caller knows of; 0 for none; -1 as above
-- ARGV[4]  attempt id of the acquire to undo: marked undone when the hold
--          does not list it (see the prelude's undone)
-- ARGV[5]  the lock's channel; empty for none
-- ARGV[6]  kind: 'reentrant', 'spin', 'redlock' or 'election'
-- ARGV[7]  optional: the channel of those who follow who holds the lock,
--          told when it is freed (see the prelude's vacate)
--
-- If the owner holds the lock with the known token, its count is set back
-- to the known count. If it holds a hold the caller does not know of, the
-- lock is freed and one waiting process is woken.
--
-- Returns 1 when a hold was cut back or freed, 0 when there was nothing to
-- undo. A WRONGKIND error when another kind holds the name.
local bad = wrong_kind(KEYS[1], ARGV[6])
if bad then
  return bad
end
local done = hold_undo(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), KEYS[3], ARGV[4])
if done == 'drop' then
  redis.call('del', KEYS[1])
  wake(KEYS[4], KEYS[5], ARGV[5])
  vacate(ARGV[7])
end
return done and 1 or 0
