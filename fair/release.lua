-- release.lua: undo one Lock of an owner's hold; the last one frees the
-- lock and wakes the first waiter in line. (Runs after queue.lua.)
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- KEYS[2]  queue list PREFIX:{NAME}:queue (see queue.lua)
-- KEYS[3]  deadline sorted set PREFIX:{NAME}:timeouts (see queue.lua)
-- KEYS[4]  sorted set PREFIX:{NAME}:released of recently released tokens,
--          scored by release time in ms
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns the owner's remaining hold count: 0 when the lock was freed (the
-- key is deleted, expired entries are evicted and '1' is published on the
-- own channel of the new head of the queue, and only there), n > 0 when the
-- owner still holds it. A retry of an Unlock that already took effect
-- returns the same answer again instead of releasing twice. Returns -1 when
-- this hold is not there: it expired or was removed, or a newer hold took
-- its place.
local lock, queue, timeouts, released = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local count = redis.call('hget', lock, ARGV[1])
if count and redis.call('hget', lock, ':token') == ARGV[2] then
  if redis.call('hget', lock, ':unlock') == ARGV[3] then
    return tonumber(count)
  end
  count = redis.call('hincrby', lock, ARGV[1], -1)
  if count > 0 then
    redis.call('hset', lock, ':unlock', ARGV[3])
    return count
  end
  redis.call('del', lock)
  local now = now_ms()
  wake(evict(queue, timeouts, now), ARGV[5])
  settle(queue, timeouts, now)
  redis.call('zadd', released, now, ARGV[2])
  redis.call('zremrangebyscore', released, '-inf', now - tonumber(ARGV[4]))
  redis.call('pexpire', released, ARGV[4])
  return 0
end
if redis.call('zscore', released, ARGV[2]) then
  return 0
end
return -1
