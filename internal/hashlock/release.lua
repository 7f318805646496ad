-- release.lua: undo one Lock of an owner's hold; the last one frees the lock.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- KEYS[2]  sorted set PREFIX:{NAME}:released of recently released tokens,
--          scored by release time in ms
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  channel to publish the release on; empty for none
--
-- Returns the owner's remaining hold count: 0 when the lock was freed (the
-- key is deleted and one waiter per process is woken), n > 0 when the owner
-- still holds it. A retry of an Unlock that already took effect returns the
-- same answer again instead of releasing twice. Returns -1 when this hold is
-- not there: it expired or was removed, or a newer hold took its place.
local count = redis.call('hget', KEYS[1], ARGV[1])
if count and redis.call('hget', KEYS[1], ':token') == ARGV[2] then
  if redis.call('hget', KEYS[1], ':unlock') == ARGV[3] then
    return tonumber(count)
  end
  count = redis.call('hincrby', KEYS[1], ARGV[1], -1)
  if count > 0 then
    redis.call('hset', KEYS[1], ':unlock', ARGV[3])
    return count
  end
  redis.call('del', KEYS[1])
  if ARGV[5] ~= '' then
    redis.call('publish', ARGV[5], '1')
  end
  local t = redis.call('time')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('zadd', KEYS[2], now, ARGV[2])
  redis.call('zremrangebyscore', KEYS[2], '-inf', now - tonumber(ARGV[4]))
  redis.call('pexpire', KEYS[2], ARGV[4])
  return 0
end
if redis.call('zscore', KEYS[2], ARGV[2]) then
  return 0
end
return -1
