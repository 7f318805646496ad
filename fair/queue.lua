-- queue.lua: the wait queue of a fair lock, shared by acquire.lua,
-- release.lua, undo.lua, leave.lua and force.lua: each runs as the prelude,
-- this file and its own file (renew.lua does not touch the queue and runs
-- after the prelude alone).
--
-- A lock's wait queue is two sorted sets in the lock's slot, with the same
-- members, the waiting owner ids:
--   PREFIX:{NAME}:waiters   score = the entry's arrival number: the queue
--                           in score order, oldest first (the head is
--                           ZRANGE 0 0);
--   PREFIX:{NAME}:timeouts  score = the entry's deadline in ms of server
--                           time.
-- A newcomer's arrival number is one more than the last entry's (1 in an
-- empty queue), so no counter key is needed. Every step costs O(log N) in
-- the length N of the queue: joining, leaving, finding the head or the
-- entry ahead of a waiter, and evicting each dead entry.
--
-- A waiter pushes its deadline to now + waiter timeout on every attempt; an
-- entry whose deadline has passed belongs to a waiter that stopped trying
-- (its process died) and is evicted by whichever script runs next. Both
-- keys expire with the latest deadline, so an abandoned queue cleans
-- itself up. All times come from the server's clock (now_ms), never from
-- a client's. Each waiter has a channel of its own, PREFIX:{NAME}:ch:OWNER,
-- on which it is woken when it is first in line for a free lock.

-- evict_batch is how many dead entries one ZREM takes out of the queue
-- (unpack puts them all on Lua's stack).
local evict_batch = 1000

-- head returns the first owner id in the queue, or nil when it is empty.
local function head_of(queue)
  return redis.call('zrange', queue, 0, 0)[1]
end

-- evict removes every entry whose deadline is at or before now, and heads
-- that have no deadline at all (nobody can refresh them). It returns the
-- head of the queue afterwards, or nil when the queue is empty. It costs
-- O(log N) per entry removed.
local function evict(queue, timeouts, now)
  local gone = redis.call('zrangebyscore', timeouts, '-inf', now)
  if #gone > 0 then
    for i = 1, #gone, evict_batch do
      redis.call('zrem', queue, unpack(gone, i, math.min(i + evict_batch - 1, #gone)))
    end
    redis.call('zremrangebyscore', timeouts, '-inf', now)
  end
  while true do
    local head = head_of(queue)
    if not head or redis.call('zscore', timeouts, head) then
      return head
    end
    redis.call('zrem', queue, head)
  end
end

-- enqueue puts owner at the end of the queue with the given deadline.
local function enqueue(queue, timeouts, owner, deadline)
  local last = redis.call('zrange', queue, -1, -1, 'withscores')
  local arrival = 1
  if #last > 0 then
    arrival = tonumber(last[2]) + 1
  end
  redis.call('zadd', timeouts, deadline, owner)
  redis.call('zadd', queue, arrival, owner)
end

-- drop takes owner out of the queue; it returns how many of the two keys
-- had an entry for it.
local function drop(queue, timeouts, owner)
  return redis.call('zrem', queue, owner) + redis.call('zrem', timeouts, owner)
end

-- ahead_of returns the owner id directly ahead of owner in the queue, or
-- nil when owner is first or not queued.
local function ahead_of(queue, owner)
  local pos = redis.call('zrank', queue, owner)
  if pos and pos > 0 then
    return redis.call('zrange', queue, pos - 1, pos - 1)[1]
  end
  return nil
end

-- settle makes both queue keys expire with the latest deadline, and drops
-- the queue when no entry has a deadline left.
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
