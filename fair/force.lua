-- force.lua: free the lock whoever holds it, however many times, and wake
-- the first waiter in line. The queue is left as it is.
--
-- KEYS     as in acquire.lua
-- ARGV[1]  force id (see the prelude's forced releases)
-- ARGV[2]  how long force ids are remembered, in ms
-- ARGV[3]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 1 when a hold was removed (expired queue entries are then
-- evicted and '1' is published on the own channel of the head of the
-- queue), or when this force did so before (a re-send); 0 when the lock
-- was free. A WRONGKIND error when another kind holds the name.
if remembered(KEYS[3], ARGV[1]) then
  return 1
end
local bad = wrong_kind(KEYS[1], 'fair')
if bad then
  return bad
end
local held = not only_kind(KEYS[1])
redis.call('del', KEYS[1])
if held then
  hand_on(KEYS[4], KEYS[5], ARGV[3])
  remember(KEYS[3], ARGV[1], tonumber(ARGV[2]))
  return 1
end
return 0
