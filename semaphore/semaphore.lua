-- semaphore.lua: the layout of a semaphore and the helpers its scripts
-- share. Each script runs as the prelude, internal/lua's queue.lua (the
-- wait queue's helpers), this file and its own file.
--
-- Every script but renew.lua gets the same KEYS, all in the semaphore's
-- {NAME} slot (renew.lua takes KEYS[1] and KEYS[4] alone):
-- KEYS[1]  hash PREFIX:{NAME}: ':kind' = 'semaphore', ':used' = the
--          permits held, and for each hold h the prelude's fields (count
--          1, token, unlock and attempt ids), ':n:' .. h = its permits
--          and, for a hold taken from the queue, ':q:' .. h = the queue
--          entry's deadline (see undo.lua)
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- KEYS[3]  released tokens: the prefix PREFIX:{NAME}:released of their
--          keys (see the prelude)
-- KEYS[4]  leases PREFIX:{NAME}:leases: member h, score = h's lease
--          deadline in ms of server time (TIME, rounded down); when a lease
--          is live, see the prelude's lease sets. A hold past it is freed
--          by the next script that runs
-- KEYS[5]  queue PREFIX:{NAME}:waiters: member n .. ':' .. w (w waits for
--          n permits), score = arrival number, oldest first
-- KEYS[6]  PREFIX:{NAME}:timeouts: the same members, score = the server ms
--          at which the entry is evicted unless its waiter tries again
--          (KEYS[5] and KEYS[6] are a wait queue of queue.lua)
-- KEYS[7]  PREFIX:{NAME}:permits: the number of permits set at run time
--          (SetPermits), with an expiry; absent, the number the caller
--          passes applies
--
-- The hash and the leases expire with the latest lease, the two queue
-- keys with the latest waiter deadline: nothing outlives what it serves.
-- A waiter w sleeps on its own channel PREFIX:{NAME}:ch:w, and is woken
-- there when the free permits serve it and every waiter ahead of it.
local hash, fence, released, leases, waiters, timeouts, permits_key =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local kind = 'semaphore'

-- limit returns the number of permits: the one set at run time, or def.
local function limit(def)
  return tonumber(redis.call('get', permits_key) or def)
end

-- free returns the permits not held (negative after the number shrank
-- below what is held).
local function free(def)
  return limit(def) - tonumber(redis.call('hget', hash, ':used') or '0')
end

-- wants returns the permits queue member m waits for, and its waiter id.
local function wants(m)
  local n, w = string.match(m, '^(%d+):(.*)$')
  return tonumber(n), w
end

-- free_hold drops hold h and gives its permits back; it returns them.
local function free_hold(h)
  local n = tonumber(redis.call('hget', hash, ':n:' .. h) or '0')
  hold_drop(hash, h)
  redis.call('hdel', hash, ':n:' .. h, ':q:' .. h)
  redis.call('zrem', leases, h)
  if n > 0 then
    redis.call('hincrby', hash, ':used', -n)
  end
  return n
end

-- settle_all makes the hash and the leases expire with the latest lease,
-- or deletes them when no hold is left; and the queue keys with the latest
-- waiter deadline, or deletes them when no waiter is left.
local function settle_all(now)
  local last = redis.call('zrange', leases, -1, -1, 'withscores')
  if #last == 0 then
    redis.call('del', hash, leases)
  else
    local ttl = math.max(tonumber(last[2]) - now, 1)
    redis.call('pexpire', hash, ttl)
    redis.call('pexpire', leases, ttl)
  end
  settle(waiters, timeouts, now)
end

-- wake_served publishes '1' on the own channel (prefix .. w) of each
-- waiter, from the head of the queue, that the free permits serve along
-- with every waiter ahead of it, skipping those whose running total of
-- permits is at or below from (already served before the change that
-- calls this, and woken then). It stops at the first waiter not served:
-- none passes one ahead of it, so a large request is not starved.
local function wake_served(def, prefix, from)
  local f = free(def)
  if f <= 0 then
    return
  end
  local sum = 0
  -- Each waiter wants one permit or more: at most f are served.
  for _, m in ipairs(redis.call('zrange', waiters, 0, f - 1)) do
    local n, w = wants(m)
    sum = sum + n
    if sum > f then
      return
    end
    if sum > from then
      publish(prefix .. w, '1')
    end
  end
end

-- tidy frees the holds whose lease has ended and evicts the waiters whose
-- deadline has passed, and wakes the waiters that this serves.
local function tidy(now, def, prefix)
  local before = free(def)
  local ended = leases_ended(leases, now)
  for _, h in ipairs(ended) do
    free_hold(h)
  end
  if evict_dead(waiters, timeouts, now) > 0 then
    -- The running totals behind an evicted waiter changed: wake every
    -- waiter served.
    wake_served(def, prefix, -1)
  elseif #ended > 0 then
    wake_served(def, prefix, before)
  end
end

-- wanted_ahead returns the permits the waiters ahead of member m wait for:
-- of every waiter when m is not queued.
local function wanted_ahead(m)
  local pos = redis.call('zrank', waiters, m)
  local ahead
  if not pos then
    ahead = redis.call('zrange', waiters, 0, -1)
  elseif pos == 0 then
    return 0
  else
    ahead = redis.call('zrange', waiters, 0, pos - 1)
  end
  local sum = 0
  for _, x in ipairs(ahead) do
    sum = sum + wants(x)
  end
  return sum
end

-- enter starts every script but acquire.lua: it returns the WRONGKIND
-- error when another kind holds the name; otherwise it frees what has
-- ended (tidy) and returns nil, the server time and the permits then
-- free.
local function enter(def, prefix)
  local bad = wrong_kind(hash, kind)
  if bad then
    return bad
  end
  local now = now_ms()
  tidy(now, def, prefix)
  return nil, now, free(def)
end
