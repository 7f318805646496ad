-- The fenced store of the fault matrix: a counter that only the newest
-- holds may read or write. A hold presents the fencing token of each of
-- its locks; the store keeps, per lock, the largest token it accepted, and
-- refuses a call whose token for some lock is smaller.
--
-- KEYS[1]   the counter
-- KEYS[2..] per lock, the largest token accepted (same order as the tokens)
-- ARGV[1]   "read": accept the tokens (raising the fences) and return the
--           counter; "write": accept the tokens and set the counter to
--           ARGV[2]; "check": compare only, raising nothing (a reader's
--           token, which readers share)
-- ARGV[2]   the new counter value ("write"; ignored otherwise)
-- ARGV[3..] the hold's token for each lock of KEYS[2..]
-- Returns   the counter (after a write) when the tokens are accepted, -1
--           when one is smaller than one accepted before.
local op = ARGV[1]
for i = 2, #KEYS do
  local max = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tonumber(ARGV[i + 1]) < max then
    return -1
  end
end
if op ~= 'check' then
  for i = 2, #KEYS do
    redis.call('SET', KEYS[i], ARGV[i + 1])
  end
end
if op == 'write' then
  redis.call('SET', KEYS[1], ARGV[2])
end
return tonumber(redis.call('GET', KEYS[1]) or '0')
