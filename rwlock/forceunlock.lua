-- forceunlock.lua: free the lock whoever holds it, for reading or writing.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  force id (see the prelude's forced releases)
-- ARGV[2]  how long force ids are remembered, in ms
-- ARGV[3]  readers' channel PREFIX:{NAME}:ch
-- ARGV[4]  writers' channel PREFIX:{NAME}:wch
--
-- Waiting writers' intents are kept: they still wait.
-- Returns 1 when holds were removed (every waiter is woken: '*' on both
-- channels), or when this force did so before (a re-send); 0 when the
-- lock was free. A WRONGKIND error when another kind holds the name.
if remembered(RELEASED, ARGV[1]) then
  return 1
end
local bad = wrong_kind(HASH, KIND)
if bad then
  return bad
end
if redis.call('del', HASH, LEASES) > 0 then
  publish(ARGV[3], '*')
  wake_all(WPROCS, TURN, ARGV[4])
  remember(RELEASED, ARGV[1], tonumber(ARGV[2]))
  return 1
end
return 0
