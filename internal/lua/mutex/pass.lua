-- pass.lua: pass on a wake-up that a process was given but has no waiter
-- left to use (they all gave up): wake the next waiting process, unless
-- the lock was taken meanwhile (its release wakes one); with none, the
-- free lock is no longer kept for anyone.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  the lock's channel
--
-- Returns 1 when a process was woken, 0 when none was.
if redis.call('exists', KEYS[1]) == 1 then
  return 0
end
return pass_on(KEYS[4], KEYS[5], ARGV[1] .. ':')
