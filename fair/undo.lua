-- undo.lua: after an acquire whose reply was lost, cut the owner's hold
-- back to what the caller knows it holds; if that frees the lock, hand it
-- on to the first waiter in line.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold the caller knows of; 0 for none.
--          With ARGV[3] = -1 (an owner id several lock values share),
--          the attempt id of the acquire to undo: see the prelude's
--          hold_undo
-- ARGV[3]  hold count the caller knows of; 0 for none; -1 as above
-- ARGV[4]  attempt id of the acquire to undo: marked undone when the hold
--          does not list it (see the prelude's undone)
-- ARGV[5]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- If the owner holds the lock with the known token, its count is set back
-- to the known count. If it holds a hold the caller does not know of, the
-- lock is freed; if that hold was taken from the queue (acquire.lua kept
-- the entry's deadline in ':q:' .. owner) and the deadline has not passed,
-- the owner is put back first in line, as the waiters behind it were
-- before the acquire. Then expired queue entries are evicted and '1' is
-- published on the own channel of the head of the queue. The owner's
-- queue entry, if any, is otherwise left alone: other calls may still wait
-- as the owner (leave.lua removes it, and the deadline kept, so that an
-- undo after it puts back nothing).
--
-- Returns 1 when a hold was cut back or freed, 0 when there was nothing to
-- undo. A WRONGKIND error when another kind holds the name.
local hash, queue, timeouts, owner = KEYS[1], KEYS[4], KEYS[5], ARGV[1]
local bad = wrong_kind(hash, 'fair')
if bad then
  return bad
end
local done = hold_undo(hash, owner, ARGV[2], tonumber(ARGV[3]), KEYS[3], ARGV[4])
if done == 'drop' then
  local place = redis.call('hget', hash, ':q:' .. owner)
  if place then
    redis.call('hdel', hash, ':q:' .. owner)
  end
  if only_kind(hash) then
    redis.call('del', hash)
  end
  if place then
    put_back(queue, timeouts, owner, tonumber(place), now_ms())
  end
  hand_on(queue, timeouts, ARGV[5])
end
return done and 1 or 0
