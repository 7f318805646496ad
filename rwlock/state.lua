-- state.lua: describe the lock as of now, counting live holds only. It
-- writes nothing: holds whose lease has ended but that no script has
-- purged yet are simply not counted.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the asking owner's write hold OWNER:w
-- ARGV[2]  the asking owner's read hold OWNER:r
--
-- Returns {mode, readers, writing, reading, pttl, waiting}:
--   mode     0 unlocked, 1 read-locked, 2 write-locked
--   readers  owners holding the read lock (a downgrading writer included)
--   writing  the owner's write hold count (0 when none)
--   reading  the owner's read hold count (0 when none)
--   pttl     ms left of the latest live lease, as PTTL gives a key's (at
--            least 1 while one is live); 0 when unlocked
--   waiting  live intents: writers waiting with writer preference
-- A WRONGKIND error when another kind holds the name.
local bad = wrong_kind(HASH, KIND)
if bad then
  return bad
end
local live = leases_live(LEASES, NOW)
local mode, readers, writing, reading, pttl = 0, 0, 0, 0, 0
for i = 1, #live, 2 do
  local h = live[i]
  if is_write(h) then
    mode = 2
  else
    readers = readers + 1
  end
  if h == ARGV[1] then
    writing = tonumber(redis.call('hget', HASH, h)) or 0
  elseif h == ARGV[2] then
    reading = tonumber(redis.call('hget', HASH, h)) or 0
  end
  pttl = math.max(pttl, tonumber(live[i + 1]) - NOW, 1)
end
if mode == 0 and readers > 0 then
  mode = 1
end
local waiting = redis.call('zcount', WRITERS, '(' .. string.format('%d', NOW), '+inf')
if handoff_left() then
  waiting = waiting - 1
end
return {mode, readers, writing, reading, pttl, waiting}
