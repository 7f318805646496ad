-- forceunlock.lua: free the lock whoever holds it, however many times.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- ARGV[1]  channel to wake every waiter on; empty for none
--
-- Returns 1 when a hold was removed, 0 when the lock was free.
if redis.call('del', KEYS[1]) == 1 then
  if ARGV[1] ~= '' then
    redis.call('publish', ARGV[1], '*')
  end
  return 1
end
return 0
