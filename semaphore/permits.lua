-- permits.lua: set the number of permits at run time.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  the new number of permits
-- ARGV[2]  its expiry in ms, restarted by every hold taken
-- ARGV[3]  number of permits when none was set at run time
-- ARGV[4]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Holds are kept: when the new number is below the permits held, no hold
-- is taken until enough are released. When it grows, the waiters the new
-- permits serve are woken. Returns the permits free afterwards (negative
-- while more are held than the new number). A WRONGKIND error when
-- another kind holds the name.
local n, expiry, def, prefix = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local bad, now, before = enter(def, prefix)
if bad then
  return bad
end
redis.call('set', permits_key, n, 'px', expiry)
wake_served(def, prefix, before)
settle_all(now)
return free(def)
