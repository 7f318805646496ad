-- force.lua: free the lock whoever holds it, however many times.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  channel to wake every waiter on; empty for none
-- ARGV[2]  kind: 'reentrant', 'spin' or 'redlock'
--
-- Returns 1 when a hold was removed ('*' is published: every waiter
-- wakes), 0 when the lock was free. A WRONGKIND error when another kind
-- holds the name.
local bad = wrong_kind(KEYS[1], ARGV[2])
if bad then
  return bad
end
if redis.call('del', KEYS[1]) == 1 then
  if ARGV[1] ~= '' then
    redis.call('publish', ARGV[1], '*')
  end
  return 1
end
return 0
