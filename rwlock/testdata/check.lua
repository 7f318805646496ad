-- check.lua: the invariant checker of the multi-process tests. Holders call
-- it right after they acquire and right before they release, so the
-- counters say who is inside the lock.
--
-- KEYS[1]  check:{NAME}:readers     owners inside with a read hold
-- KEYS[2]  check:{NAME}:writers     owners inside with the write hold
-- KEYS[3]  check:{NAME}:violations  times the invariant was found broken
-- KEYS[4]  check:{NAME}:maxreaders  most readers seen inside at once
-- ARGV[1]  'r+' a reader enters, 'r-' a reader leaves, 'w+' a writer
--          enters, 'w-' a writer leaves, 'w>r' the writer downgrades
--
-- Returns 1 when, after the change, there are two writers, or a writer
-- and a reader, or a negative count (a violation, also counted in
-- KEYS[3]); else 0.
local r = tonumber(redis.call('get', KEYS[1]) or '0')
local w = tonumber(redis.call('get', KEYS[2]) or '0')
local op = ARGV[1]
if op == 'r+' then
  r = r + 1
elseif op == 'r-' then
  r = r - 1
elseif op == 'w+' then
  w = w + 1
elseif op == 'w-' then
  w = w - 1
elseif op == 'w>r' then
  w = w - 1
  r = r + 1
else
  return redis.error_reply('bad op ' .. op)
end
redis.call('set', KEYS[1], r)
redis.call('set', KEYS[2], w)
if r > tonumber(redis.call('get', KEYS[4]) or '0') then
  redis.call('set', KEYS[4], r)
end
if w > 1 or (w == 1 and r > 0) or r < 0 or w < 0 then
  redis.call('incr', KEYS[3])
  return 1
end
return 0
