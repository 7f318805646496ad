-- acquire.lua: take a RedLock's hold on one node for an owner.
--
-- KEYS[1]  lock hash PREFIX:{NAME}: field = owner id, value = 1;
--          field ':token' = this node's fencing token of the hold
-- KEYS[2]  this node's fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
--
-- Returns {1, token} when the owner now holds the lock on this node, with a
-- newly minted token. A hold of the same owner that is already there (left
-- by an earlier attempt whose reply was lost, or taken by another value with
-- the same owner id) is replaced, so a token is never handed out twice.
-- Returns {0, pttl} when another owner holds it: pttl is its remaining lease
-- in ms (-1 if it has none).
if redis.call('exists', KEYS[1]) == 1 and redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return {0, redis.call('pttl', KEYS[1])}
end
local token = redis.call('incr', KEYS[2])
redis.call('del', KEYS[1])
redis.call('hset', KEYS[1], ARGV[1], 1, ':token', token)
redis.call('pexpire', KEYS[1], ARGV[2])
return {1, token}
