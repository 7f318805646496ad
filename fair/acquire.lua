-- acquire.lua: take the fair lock for an owner when it is free and the
-- owner is first in line, re-enter it, or queue the owner to wait.
-- (Runs after queue.lua.)
--
-- KEYS[1]  lock hash PREFIX:{NAME}: field = owner id, value = hold count;
--          field ':token' = fencing token of the hold, ':unlock' = id of the
--          last partial unlock (see release.lua)
-- KEYS[2]  queue list PREFIX:{NAME}:queue (see queue.lua)
-- KEYS[3]  deadline sorted set PREFIX:{NAME}:timeouts (see queue.lua)
-- KEYS[4]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
-- ARGV[3]  waiter timeout in ms: the owner's queue entry is evicted this
--          long after its latest attempt
-- ARGV[4]  '1' to join the queue (or keep its place) when the lock cannot
--          be taken now; '0' for a single try that never joins
-- ARGV[5]  prefix of the waiters' channels, PREFIX:{NAME}:ch: (an owner's
--          channel is the prefix followed by its id)
--
-- Returns {count, token} when the owner now holds the lock: count 1 and a
-- newly minted token for a fresh hold (its queue entry is removed), count
-- > 1 and the hold's token on re-entry. Returns {0, wait} when it does not:
-- wait is how many ms may pass before something changes without a
-- wake-up, the smaller of the holder's remaining lease and the time until
-- the deadline of the entry directly ahead of the owner in the queue; -1
-- when neither applies.
local lock, queue, timeouts, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, lease, wt, join, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1', ARGV[5]
local now = now_ms()

-- The owner is alive: refresh its entry before evicting the dead.
local queued = redis.call('zscore', timeouts, owner)
if queued then
  redis.call('zadd', timeouts, now + wt, owner)
end
local before = redis.call('lindex', queue, 0) or nil
local head = evict(queue, timeouts, now)

if redis.call('hexists', lock, owner) == 1 then
  local count = redis.call('hincrby', lock, owner, 1)
  redis.call('hdel', lock, ':unlock')
  redis.call('pexpire', lock, lease)
  if queued then
    redis.call('lrem', queue, 0, owner)
    redis.call('zrem', timeouts, owner)
  end
  settle(queue, timeouts, now)
  return {count, tonumber(redis.call('hget', lock, ':token'))}
end

local locked = redis.call('exists', lock) == 1
if not locked then
  if not head or head == owner then
    if head then
      redis.call('lpop', queue)
      redis.call('zrem', timeouts, owner)
    end
    local token = redis.call('incr', fence)
    redis.call('hset', lock, owner, 1, ':token', token)
    redis.call('pexpire', lock, lease)
    settle(queue, timeouts, now)
    return {1, token}
  end
  if head ~= before then
    -- Evicting dead entries made head first in line for a free lock.
    wake(head, prefix)
  end
end

if join and not queued then
  redis.call('zadd', timeouts, now + wt, owner)
  redis.call('rpush', queue, owner)
end
settle(queue, timeouts, now)

local wait = -1
if locked then
  wait = redis.call('pttl', lock)
end
local pos = redis.call('lpos', queue, owner)
if pos and pos > 0 then
  local deadline = redis.call('zscore', timeouts, redis.call('lindex', queue, pos - 1))
  if deadline then
    local d = tonumber(deadline) - now
    if wait < 0 or d < wait then
      wait = d
    end
  end
end
return {0, wait}
