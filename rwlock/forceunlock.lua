-- forceunlock.lua: free the lock whoever holds it, for reading or writing.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  readers' channel PREFIX:{NAME}:ch
-- ARGV[2]  writers' channel PREFIX:{NAME}:wch
--
-- Waiting writers' intents are kept: they still wait.
-- Returns 1 when holds were removed (every waiter is woken: '*' on both
-- channels), 0 when the lock was free. A WRONGKIND error when another kind
-- holds the name.
local bad = wrong_kind(HASH, KIND)
if bad then
  return bad
end
if redis.call('del', HASH, LEASES) > 0 then
  publish(ARGV[1], '*')
  wake_all(WPROCS, TURN, ARGV[2])
  return 1
end
return 0
