-- queue.lua: the wait queue of a fair lock, shared by acquire.lua,
-- release.lua, undo.lua, leave.lua and force.lua: each runs as the prelude,
-- internal/lua's queue.lua (the queue's helpers: evict, enqueue, drop,
-- ahead_of, settle), this file and its own file (renew.lua does not touch
-- the queue and runs after the prelude alone).
--
-- The queue's members are the waiting owner ids. Each waiter has a channel
-- of its own, PREFIX:{NAME}:ch:OWNER, on which it is woken when it is
-- first in line for a free lock.

-- wake publishes a wake-up ('1') on the own channel of owner head (prefix
-- .. head), if there is a head.
local function wake(head, prefix)
  if head then
    publish(prefix .. head, '1')
  end
end

-- hand_on evicts the dead entries of a queue whose lock was just freed,
-- wakes the waiter now first in line and settles the queue's expiry.
local function hand_on(queue, timeouts, prefix)
  if redis.call('exists', queue, timeouts) == 0 then
    return -- nobody waits
  end
  local now = now_ms()
  wake(evict(queue, timeouts, now), prefix)
  settle(queue, timeouts, now)
end

-- put_back puts owner back first in line, with deadline (server ms), after
-- the undo of a hold it took from the head of the queue: every waiter now
-- queued was behind it then. Nothing when the deadline has passed. An
-- entry the owner has already keeps the later deadline.
local function put_back(queue, timeouts, owner, deadline, now)
  if deadline <= now then
    return
  end
  local first = redis.call('zrange', queue, 0, 0, 'withscores')
  if first[1] ~= owner then
    local arrival = 1
    if first[1] then
      arrival = tonumber(first[2]) - 1
    end
    redis.call('zadd', queue, arrival, owner)
  end
  local had = redis.call('zscore', timeouts, owner)
  if not had or tonumber(had) < deadline then
    redis.call('zadd', timeouts, deadline, owner)
  end
end
