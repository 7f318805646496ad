-- acquire.lua: take the lock for an owner, or re-enter it.
--
-- KEYS[1]  lock hash PREFIX:{NAME}: field = owner id, value = hold count;
--          field ':token' = fencing token of the hold, ':unlock' = id of the
--          last partial unlock (see release.lua)
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
--
-- Returns {count, token} when the lock is now held by the owner: count 1 and
-- a newly minted token for a fresh hold, count > 1 and the hold's token on
-- re-entry. Returns {0, pttl} when another owner holds it: pttl is its
-- remaining lease in ms (-1 if it has none).
if redis.call('exists', KEYS[1]) == 0 then
  local token = redis.call('incr', KEYS[2])
  redis.call('hset', KEYS[1], ARGV[1], 1, ':token', token)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return {1, token}
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  local count = redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('hdel', KEYS[1], ':unlock')
  redis.call('pexpire', KEYS[1], ARGV[2])
  return {count, tonumber(redis.call('hget', KEYS[1], ':token'))}
end
return {0, redis.call('pttl', KEYS[1])}
