-- force.lua: free the lock whoever holds it, however many times.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  the lock's channel; empty for none
-- ARGV[2]  kind: 'reentrant', 'spin', 'redlock' or 'election'
-- ARGV[3]  optional: the channel of those who follow who holds the lock,
--          told when it is freed (see the prelude's vacate)
--
-- Returns 1 when a hold was removed (every waiter of every process
-- wakes: see the prelude's wake_all; and ARGV[3] is told), 0 when the
-- lock was free. A WRONGKIND error when another kind holds the name.
local bad = wrong_kind(KEYS[1], ARGV[2])
if bad then
  return bad
end
if redis.call('del', KEYS[1]) == 1 then
  wake_all(KEYS[4], KEYS[5], ARGV[1])
  vacate(ARGV[3])
  return 1
end
return 0
