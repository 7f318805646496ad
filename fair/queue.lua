-- queue.lua: the wait queue of a fair lock, shared by acquire.lua,
-- release.lua, undo.lua, leave.lua and force.lua: each runs as the prelude,
-- this file and its own file (renew.lua does not touch the queue and runs
-- after the prelude alone).
--
-- A lock's wait queue is two keys in the lock's slot:
--   PREFIX:{NAME}:queue     list of waiting owner ids, oldest first
--   PREFIX:{NAME}:timeouts  sorted set: member = an owner id in the queue,
--                           score = its deadline in ms of server time.
-- A waiter pushes its deadline to now + waiter timeout on every attempt; an
-- entry whose deadline has passed belongs to a waiter that stopped trying
-- (its process died) and is evicted by whichever script runs next. Both
-- keys expire with the latest deadline, so an abandoned queue cleans
-- itself up. All times come from the server's clock (now_ms), never from
-- a client's. Each waiter has a channel of its own, PREFIX:{NAME}:ch:OWNER,
-- on which it is woken when it is first in line for a free lock.

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

-- wake publishes a wake-up ('1') on the own channel of owner head (prefix
-- .. head), if there is a head.
local function wake(head, prefix)
  if head then
    redis.call('publish', prefix .. head, '1')
  end
end

-- hand_on evicts the dead entries of a queue whose lock was just freed,
-- wakes the waiter now first in line and settles the queue's expiry.
local function hand_on(queue, timeouts, prefix)
  local now = now_ms()
  wake(evict(queue, timeouts, now), prefix)
  settle(queue, timeouts, now)
end
