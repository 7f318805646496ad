-- redlock_raise.lua: bring one node's fencing counter up to a RedLock
-- hold's token, so that the next hold this node grants gets a larger one.
--
-- KEYS     as in redlock_acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  this node's token of the hold
-- ARGV[3]  the hold's RedLock token: the largest token its nodes minted
--
-- Returns 1 when the hold is still there and the counter is now at least
-- ARGV[3]; 0 when the hold is gone (the counter is left as it was). It
-- changes only the counter, never the hash.
if hold_live(KEYS[1], ARGV[1], ARGV[2]) then
  local n = tonumber(redis.call('get', KEYS[2]) or '0')
  if n < tonumber(ARGV[3]) then
    redis.call('set', KEYS[2], ARGV[3])
  end
  return 1
end
return 0
