-- queue.lua: helpers shared by the fair-lock scripts. acquire.lua,
-- release.lua, leave.lua and forceunlock.lua each run as this file followed
-- by their own; renew.lua does not touch the queue and runs alone.
--
-- A lock's wait queue is two keys in the lock's slot:
--   PREFIX:{NAME}:queue     list of waiting owner ids, oldest first
--   PREFIX:{NAME}:timeouts  sorted set: member = an owner id in the queue,
--                           score = its deadline in ms of server time.
-- A waiter pushes its deadline to now + waiter timeout on every attempt; an
-- entry whose deadline has passed belongs to a waiter that stopped trying
-- (its process died) and is evicted by whichever script runs next. Both
-- keys expire with the latest deadline, so an abandoned queue cleans
-- itself up. All times come from the server's clock (TIME), never from a
-- client's.

-- now_ms returns the server time in ms.
local function now_ms()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- evict removes every entry whose deadline is at or before now, and heads
-- that have no deadline at all (nobody can refresh them). It returns the
-- head of the queue afterwards, or nil when the queue is empty.
local function evict(queue, timeouts, now)
  local gone = redis.call('zrangebyscore', timeouts, '-inf', now)
  if #gone > 0 then
    for _, id in ipairs(gone) do
      redis.call('lrem', queue, 0, id)
    end
    redis.call('zremrangebyscore', timeouts, '-inf', now)
  end
  while true do
    local head = redis.call('lindex', queue, 0)
    if not head or redis.call('zscore', timeouts, head) then
      return head or nil
    end
    redis.call('lpop', queue)
  end
end

-- settle makes both queue keys expire with the latest deadline, and drops
-- the list when no entry has a deadline left.
local function settle(queue, timeouts, now)
  local last = redis.call('zrange', timeouts, -1, -1, 'withscores')
  if #last == 0 then
    redis.call('del', queue)
    return
  end
  local ttl = math.max(tonumber(last[2]) - now, 1)
  redis.call('pexpire', queue, ttl)
  redis.call('pexpire', timeouts, ttl)
end

-- wake publishes a wake-up on the own channel of owner head (prefix ..
-- head), if there is a head.
local function wake(head, prefix)
  if head then
    redis.call('publish', prefix .. head, '1')
  end
end

