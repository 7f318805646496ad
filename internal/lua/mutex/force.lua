-- force.lua: free the lock whoever holds it, however many times.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  force id (see the prelude's forced releases)
-- ARGV[2]  how long force ids are remembered, in ms
-- ARGV[3]  the lock's channel; empty for none
-- ARGV[4]  kind: 'reentrant', 'spin', 'redlock' or 'election'
-- ARGV[5]  optional: the channel of those who follow who holds the lock,
--          told when it is freed (see the prelude's vacate)
--
-- Returns 1 when a hold was removed (every waiter of every process
-- wakes: see the prelude's wake_all; and ARGV[5] is told), or when this
-- force did so before (a re-send); 0 when the lock was free. A WRONGKIND
-- error when another kind holds the name.
if remembered(KEYS[3], ARGV[1]) then
  return 1
end
local bad = wrong_kind(KEYS[1], ARGV[4])
if bad then
  return bad
end
if redis.call('del', KEYS[1]) == 1 then
  wake_all(KEYS[4], KEYS[5], ARGV[3])
  vacate(ARGV[5])
  remember(KEYS[3], ARGV[1], tonumber(ARGV[2]))
  return 1
end
return 0
