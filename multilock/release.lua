-- release.lua: free a RedLock's hold on one node.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  this node's token of the hold to free, or '' for whatever hold
--          the owner has there (after an acquire whose reply never came)
--
-- Returns 1 when the hold was there and the lock is now free, 0 when it was
-- not there (it expired, was removed or replaced, or never began).
if redis.call('hexists', KEYS[1], ARGV[1]) == 1
    and (ARGV[2] == '' or redis.call('hget', KEYS[1], ':token') == ARGV[2]) then
  redis.call('del', KEYS[1])
  return 1
end
return 0
