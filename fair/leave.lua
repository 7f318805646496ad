-- leave.lua: take an owner that gave up waiting out of the queue. If that
-- leaves a free lock with a new first waiter, wake it.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 1 when the owner's queue entry was removed, 0 when it had none.
-- When the lock is free afterwards and the first waiter changed (the owner
-- was first, or entries ahead of it expired), '1' is published on the new
-- head's own channel. Of the lock hash, only the deadline a hold of the
-- owner keeps of the entry it was taken from (':q:' .. owner, see
-- acquire.lua) is removed: the owner no longer waits, so the undo of that
-- acquire, if it comes later, must not put it back in line.
local hash, queue, timeouts = KEYS[1], KEYS[4], KEYS[5]
local owner = ARGV[1]
local now = now_ms()
redis.call('hdel', hash, ':q:' .. owner)
local before = head_of(queue)
local n = drop(queue, timeouts, owner)
local head = evict(queue, timeouts, now)
if head ~= before and only_kind(hash) then
  wake(head, ARGV[2])
end
settle(queue, timeouts, now)
if n > 0 then
  return 1
end
return 0
