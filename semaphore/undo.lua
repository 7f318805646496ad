-- undo.lua: after an acquire whose reply was lost, free the hold it may
-- have taken, which its caller does not know of.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  hold id
-- ARGV[2]  fencing token the caller knows of: 0 (none)
-- ARGV[3]  hold count the caller knows of: 0 (none)
-- ARGV[4]  attempt id of the acquire to undo: marked undone when the hold
--          does not list it (see the prelude's undone)
-- ARGV[5]  number of permits when none was set at run time
-- ARGV[6]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 1 when a hold was freed (the waiters its permits serve are
-- woken, as by release.lua), 0 when there was nothing to undo. A hold
-- taken from the queue (acquire.lua kept the entry's deadline in ':q:' ..
-- h) whose deadline has not passed is put back first in line: the
-- waiters queued since came behind it, and those ahead of it were served
-- along with it. The queue entry is otherwise left alone (leave.lua
-- removes it, and the deadline kept, so that an undo after it puts back
-- nothing). A WRONGKIND error when another kind holds the name.
local h, def, prefix = ARGV[1], ARGV[5], ARGV[6]
local bad, now, before = enter(def, prefix)
if bad then
  return bad
end
local done = hold_undo(hash, h, ARGV[2], tonumber(ARGV[3]), released, ARGV[4])
if done == 'drop' then
  local place = redis.call('hget', hash, ':q:' .. h)
  local n = free_hold(h)
  if place and n > 0 then
    put_back(waiters, timeouts, n .. ':' .. h, tonumber(place), now)
  end
  wake_served(def, prefix, before)
end
settle_all(now)
return done and 1 or 0
