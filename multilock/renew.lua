-- renew.lua: extend the lease of a RedLock's hold on one node, if it is
-- still there.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  this node's token of the hold
-- ARGV[3]  lease in ms
--
-- Returns 1 when the lease was extended, 0 when the hold is gone.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1
    and redis.call('hget', KEYS[1], ':token') == ARGV[2] then
  redis.call('pexpire', KEYS[1], ARGV[3])
  return 1
end
return 0
