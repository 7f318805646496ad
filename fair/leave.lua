-- leave.lua: take an owner that gave up waiting out of the queue, and undo
-- a hold that an attempt whose reply was lost may have taken. If that
-- leaves the lock free with a new first waiter, wake it.
-- (Runs after queue.lua.)
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- KEYS[2]  queue list PREFIX:{NAME}:queue (see queue.lua)
-- KEYS[3]  deadline sorted set PREFIX:{NAME}:timeouts (see queue.lua)
-- ARGV[1]  owner id
-- ARGV[2]  '1' to remove the owner's queue entry; '0' to keep it (another
--          caller still waits as the same owner)
-- ARGV[3]  '1' to undo what an attempt with an unknown outcome may have
--          taken; '0' not to touch the lock
-- ARGV[4]  fencing token of the hold the caller knows it has; 0 for none
-- ARGV[5]  hold count the caller knows it has; 0 for none
-- ARGV[6]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Undoing means: if the owner holds the lock with the known token, its
-- count is set back to the known count; if it holds a hold the caller does
-- not know of, that hold is deleted.
--
-- Returns {removed, undone}: removed is 1 when a queue entry was removed,
-- undone is 1 when a hold was cut back or deleted (else 0 each). When the
-- lock is free afterwards and the first waiter changed (or the lock was
-- just freed), '1' is published on that waiter's own channel.
local lock, queue, timeouts = KEYS[1], KEYS[2], KEYS[3]
local owner = ARGV[1]
local now = now_ms()
local before = redis.call('lindex', queue, 0) or nil

local removed = 0
if ARGV[2] == '1' then
  local n = redis.call('lrem', queue, 0, owner) + redis.call('zrem', timeouts, owner)
  if n > 0 then
    removed = 1
  end
end

local undone, freed = 0, false
if ARGV[3] == '1' then
  local count = redis.call('hget', lock, owner)
  if count then
    local known = tonumber(ARGV[5])
    if known > 0 and redis.call('hget', lock, ':token') == ARGV[4] then
      if tonumber(count) > known then
        redis.call('hset', lock, owner, known)
        undone = 1
      end
    else
      redis.call('del', lock)
      undone, freed = 1, true
    end
  end
end

local head = evict(queue, timeouts, now)
if redis.call('exists', lock) == 0 and (head ~= before or freed) then
  wake(head, ARGV[6])
end
settle(queue, timeouts, now)
return {removed, undone}
