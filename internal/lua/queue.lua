-- queue.lua: a FIFO wait queue of waiters in a lock's slot, shared by the
-- kinds whose waiters take their turn in order (fair, semaphore). A kind
-- that uses it loads it after the prelude and before its own files (see
-- QueueLoader); it defines no keys of its own: each helper is given the
-- queue's two keys.
--
-- A wait queue is two sorted sets in the lock's slot, with the same
-- members, one per waiter (a kind chooses what a member names):
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
-- a client's.

-- evict_batch is how many dead entries one ZREM takes out of the queue
-- (unpack puts them all on Lua's stack).
local evict_batch = 1000

-- head_of returns the first member of the queue, or nil when it is empty.
local function head_of(queue)
  return redis.call('zrange', queue, 0, 0)[1]
end

-- evict_dead removes every entry whose deadline is at or before now, and
-- returns how many it removed. It costs O(log N) per entry removed.
local function evict_dead(queue, timeouts, now)
  local gone = redis.call('zrangebyscore', timeouts, '-inf', now)
  if #gone > 0 then
    for i = 1, #gone, evict_batch do
      redis.call('zrem', queue, unpack(gone, i, math.min(i + evict_batch - 1, #gone)))
    end
    redis.call('zremrangebyscore', timeouts, '-inf', now)
  end
  return #gone
end

-- evict removes every entry whose deadline is at or before now, and heads
-- that have no deadline at all (nobody can refresh them). It returns the
-- head of the queue afterwards, or nil when the queue is empty. It costs
-- O(log N) per entry removed.
local function evict(queue, timeouts, now)
  evict_dead(queue, timeouts, now)
  while true do
    local head = head_of(queue)
    if not head or redis.call('zscore', timeouts, head) then
      return head
    end
    redis.call('zrem', queue, head)
  end
end

-- enqueue puts member at the end of the queue with the given deadline.
local function enqueue(queue, timeouts, member, deadline)
  local last = redis.call('zrange', queue, -1, -1, 'withscores')
  local arrival = 1
  if #last > 0 then
    arrival = tonumber(last[2]) + 1
  end
  redis.call('zadd', timeouts, deadline, member)
  redis.call('zadd', queue, arrival, member)
end

-- drop takes member out of the queue; it returns how many of the two keys
-- had an entry for it.
local function drop(queue, timeouts, member)
  return redis.call('zrem', queue, member) + redis.call('zrem', timeouts, member)
end

-- ahead_of returns the member directly ahead of member in the queue, or
-- nil when member is first or not queued.
local function ahead_of(queue, member)
  local pos = redis.call('zrank', queue, member)
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

-- put_back puts member back first in line, with deadline (server ms),
-- after the undo of a hold it took from the queue (a fair lock's head,
-- or a semaphore's waiter that the free permits served along with every
-- waiter ahead of it): the waiters queued since came behind it. Nothing
-- when the deadline has passed. An entry the member has already keeps the
-- later deadline.
local function put_back(queue, timeouts, member, deadline, now)
  if deadline <= now then
    return
  end
  local first = redis.call('zrange', queue, 0, 0, 'withscores')
  if first[1] ~= member then
    local arrival = 1
    if first[1] then
      arrival = tonumber(first[2]) - 1
    end
    redis.call('zadd', queue, arrival, member)
  end
  local had = redis.call('zscore', timeouts, member)
  if not had or tonumber(had) < deadline then
    redis.call('zadd', timeouts, deadline, member)
  end
end
