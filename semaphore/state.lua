-- state.lua: read a semaphore's permits and holders, after freeing the
-- holds whose lease ended.
--
-- KEYS     see semaphore.lua
-- ARGV[1]  number of permits when none was set at run time
-- ARGV[2]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns {permits, free, h1, n1, token1, ms1, h2, …}: the number of
-- permits, the permits free (negative while more are held than the
-- number), then for each hold, in the order its lease ends, its id, its
-- permits, its token and the ms left of its lease. A WRONGKIND error when
-- another kind holds the name.
local def, prefix = ARGV[1], ARGV[2]
local bad, now = enter(def, prefix)
if bad then
  return bad
end
settle_all(now)
local out = {limit(def), free(def)}
local holds = redis.call('zrange', leases, 0, -1, 'withscores')
for i = 1, #holds, 2 do
  local h = holds[i]
  table.insert(out, h)
  table.insert(out, tonumber(redis.call('hget', hash, ':n:' .. h)))
  table.insert(out, redis.call('hget', hash, ':t:' .. h))
  table.insert(out, math.max(tonumber(holds[i + 1]) - now, 1))
end
return out
