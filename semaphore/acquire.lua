-- acquire.lua: take n permits for a hold when the free permits serve it
-- and every waiter ahead of it in the queue, or queue it to wait.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  hold id h, new for every Acquire; also its waiter id
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every attempt: a re-sent acquire that took
--          the permits answers again, without taking them twice
-- ARGV[4]  number of permits when none was set at run time
-- ARGV[5]  n, the permits wanted
-- ARGV[6]  waiter timeout in ms: the queue entry is evicted this long
--          after the waiter's latest attempt
-- ARGV[7]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
-- ARGV[8]  expiry in ms of a number of permits set at run time, restarted
--          by every hold taken
-- ARGV[9]  '1' to join the queue (or keep the place) when refused; '0' for
--          a single try that never joins
--
-- Returns {1, token} when the hold took the permits (its queue entry is
-- removed, and its deadline kept in the hash's ':q:' .. h for undo.lua;
-- the token is newly minted). Returns {0, wait} when it did not:
-- wait is how many ms may pass before a lease ends, freeing permits
-- without a wake-up; -1 when no permit is held. Returns {0, 0} to an
-- acquire undone before it came (see the prelude's undone), which does
-- nothing, nor joins the queue. A WRONGKIND error when another kind holds
-- the name.
local h, lease, id, def, n, wt, prefix, expiry, join =
  ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], tonumber(ARGV[8]), ARGV[9] == '1'
if undone(released, id) then
  return {0, 0}
end
local first = acquire_first(hash, kind, h, id)
if first then
  return first
end
local now = now_ms()
local m = n .. ':' .. h
local queued = redis.call('zscore', timeouts, m)
if queued then
  -- The waiter is alive: refresh its entry before evicting the dead.
  redis.call('zadd', timeouts, now + wt, m)
end
tidy(now, def, prefix)

if free(def) - wanted_ahead(m) >= n then
  local token
  if queued then
    -- Taken from the queue: the hold keeps the entry's deadline, so that
    -- the undo of this acquire puts the waiter back in line.
    drop(waiters, timeouts, m)
    token = hold_new(hash, fence, kind, h, id, ':n:' .. h, n, ':q:' .. h, now + wt)
  else
    token = hold_new(hash, fence, kind, h, id, ':n:' .. h, n)
  end
  redis.call('hincrby', hash, ':used', n)
  redis.call('zadd', leases, now + lease, h)
  redis.call('pexpire', permits_key, expiry)
  settle_all(now)
  return {1, token}
end

if join and not queued then
  enqueue(waiters, timeouts, m, now + wt)
end
settle_all(now)
local wait = -1
local soonest = redis.call('zrange', leases, 0, 0, 'withscores')
if #soonest > 0 then
  wait = tonumber(soonest[2]) - now
end
return {0, wait}
