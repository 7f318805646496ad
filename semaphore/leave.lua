-- leave.lua: take a waiter that gave up out of the queue, and wake the
-- waiters behind it that the free permits now serve.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  queue member: n .. ':' .. the waiter's id
-- ARGV[2]  number of permits when none was set at run time
-- ARGV[3]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 1 when the entry was removed, 0 when there was none. A
-- WRONGKIND error when another kind holds the name.
local m, def, prefix = ARGV[1], ARGV[2], ARGV[3]
local bad, now = enter(def, prefix)
if bad then
  return bad
end
-- The waiter no longer waits: the undo of a hold it took from the queue
-- must not put it back in line (see undo.lua).
local _, w = wants(m)
redis.call('hdel', hash, ':q:' .. w)
local left = drop(waiters, timeouts, m) > 0
if left then
  -- The running totals behind it dropped by its permits.
  wake_served(def, prefix, free(def) - wants(m))
end
settle_all(now)
return left and 1 or 0
