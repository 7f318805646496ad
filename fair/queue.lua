-- queue.lua: the wait queue of a fair lock, shared by acquire.lua,
-- release.lua, undo.lua, leave.lua and force.lua: each runs as the prelude,
-- internal/lua's queue.lua (the queue's helpers: evict, enqueue, drop,
-- ahead_of, settle, put_back), this file and its own file (renew.lua does not touch
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
