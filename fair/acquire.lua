-- acquire.lua: take the fair lock for an owner when it is free and the
-- owner is first in line, re-enter it, or queue the owner to wait.
--
-- KEYS[1]  lock hash PREFIX:{NAME}: one hold (see the prelude), kind 'fair'
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- KEYS[3]  released tokens: the prefix PREFIX:{NAME}:released of their
--          keys (see the prelude)
-- KEYS[4]  queue sorted set PREFIX:{NAME}:waiters (see queue.lua)
-- KEYS[5]  deadline sorted set PREFIX:{NAME}:timeouts (see queue.lua)
-- ARGV[1]  owner id (the hold's id)
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every acquire the caller makes: a re-sent
--          acquire that took the lock answers again, without counting twice
-- ARGV[4]  waiter timeout in ms: the owner's queue entry is evicted this
--          long after its latest attempt
-- ARGV[5]  prefix of the waiters' channels, PREFIX:{NAME}:ch: (an owner's
--          channel is the prefix followed by its id)
-- ARGV[6]  '1' to join the queue (or keep its place) when the lock cannot
--          be taken now; '0' for a single try that never joins
-- ARGV[7]  optional: '1' when the owner may not re-enter its hold
--          (lockkit.WithoutReentry): the owner's own hold refuses the
--          acquire as another owner's does, and the owner queues behind
--          it; absent or '0' to re-enter
--
-- Returns {count, token} when the owner now holds the lock: count 1 and a
-- newly minted token for a fresh hold (its queue entry is removed, and its
-- deadline kept in the hash's ':q:' .. owner for undo.lua), count
-- > 1 and the hold's token on re-entry (the lease is extended to ARGV[2],
-- never shortened). Returns {0, wait} when it does not (with ARGV[7],
-- also while the owner holds it): wait is how many ms may pass before
-- something changes without a wake-up, the smaller of the holder's
-- remaining lease and the time until the deadline of the entry directly
-- ahead of the owner in the queue; -1 when neither applies. When the lock
-- is free and another waiter is first in line, '1' is published on that
-- waiter's own channel. Returns {0, 0} to an acquire undone before it
-- came (see the prelude's undone), which does nothing, nor joins the
-- queue. A WRONGKIND error when another kind holds the name.
local hash, fence, queue, timeouts = KEYS[1], KEYS[2], KEYS[4], KEYS[5]
local owner, lease, id, wt, prefix, join = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6] == '1'
local reenter = ARGV[7] ~= '1'
local n = existing(KEYS[3], id, hash, queue, timeouts)
if not n then
  return {0, 0}
end
if n == 0 then
  -- Free, and nobody queued: take it at once, as the steps below would.
  local token = hold_new(hash, fence, 'fair', owner, id)
  redis.call('pexpire', hash, lease)
  return {1, token}
end
local first, v = acquire_first(hash, 'fair', owner, id)
if first then
  return first
end
local now = now_ms()

-- The owner is alive: refresh its entry before evicting the dead.
local queued = redis.call('zscore', timeouts, owner)
if queued then
  redis.call('zadd', timeouts, now + wt, owner)
end
local head = evict(queue, timeouts, now)

if reenter and v[2] then
  local r = hold_reenter(hash, owner, id, v[3], v[4])
  if redis.call('pttl', hash) < lease then
    redis.call('pexpire', hash, lease)
  end
  if queued then
    drop(queue, timeouts, owner)
  end
  settle(queue, timeouts, now)
  return r
end

local locked = not only_kind(hash)
if not locked then
  if not head or head == owner then
    local token
    if head then
      -- Taken from the queue: the hold keeps the entry's deadline, so that
      -- the undo of this acquire puts the owner back first in line.
      drop(queue, timeouts, owner)
      token = hold_new(hash, fence, 'fair', owner, id, ':q:' .. owner, now + wt)
    else
      token = hold_new(hash, fence, 'fair', owner, id)
    end
    redis.call('pexpire', hash, lease)
    settle(queue, timeouts, now)
    return {1, token}
  end
  -- head is first in line for a free lock and has not taken it: it may
  -- not know (evicting dead entries just made it first, or the hold it
  -- waited for ended without a release, its holder's lease run out):
  -- wake it.
  wake(head, prefix)
end

if join and not queued then
  enqueue(queue, timeouts, owner, now + wt)
end
settle(queue, timeouts, now)

local wait = -1
if locked then
  wait = redis.call('pttl', hash)
end
local ahead = ahead_of(queue, owner)
if ahead then
  local deadline = redis.call('zscore', timeouts, ahead)
  if deadline then
    local d = tonumber(deadline) - now
    if wait < 0 or d < wait then
      wait = d
    end
  end
end
return {0, wait}
