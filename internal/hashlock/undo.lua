-- undo.lua: after an acquire whose reply was lost, cut the owner's hold
-- back to what the caller knows it holds.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- ARGV[1]  owner id (one that no other lock value uses)
-- ARGV[2]  fencing token of the hold the caller knows of; 0 for none
-- ARGV[3]  hold count the caller knows of; 0 for none
-- ARGV[4]  channel to publish a release on; empty for none
--
-- If the owner holds the lock with the known token, its count is set back
-- to the known count. If it holds a hold the caller does not know of, that
-- hold is deleted and one waiter per process is woken.
--
-- Returns 1 when a hold was cut back or deleted, 0 when there was nothing
-- to undo.
local count = redis.call('hget', KEYS[1], ARGV[1])
if not count then
  return 0
end
local known = tonumber(ARGV[3])
if known > 0 and redis.call('hget', KEYS[1], ':token') == ARGV[2] then
  if tonumber(count) > known then
    redis.call('hset', KEYS[1], ARGV[1], known)
    return 1
  end
  return 0
end
redis.call('del', KEYS[1])
if ARGV[4] ~= '' then
  redis.call('publish', ARGV[4], '1')
end
return 1
