-- release.lua: free a hold's permits and wake the waiters they serve.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  hold id
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  unlock id: the same for every retry of one Release
-- ARGV[4]  how long released tokens are remembered, in ms
-- ARGV[5]  number of permits when none was set at run time
-- ARGV[6]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 0 when the hold was freed ('1' is then published on the own
-- channel of each waiter that the permits now free serve, in queue
-- order, and of no other); a retry of a Release that took effect returns
-- 0 again without freeing anything twice. Returns -1 when the hold is not
-- there: its lease ended, or it was never taken. A WRONGKIND error when
-- another kind holds the name.
local h, token, id, window, def, prefix = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local bad, now, before = enter(def, prefix)
if bad then
  return bad
end
local count, ended = hold_release(hash, released, h, token, id, window)
if ended then
  free_hold(h)
  wake_served(def, prefix, before)
end
settle_all(now)
return count
