-- forceunlock.lua: free the lock whoever holds it, however many times, and
-- wake the first waiter in line. (Runs after queue.lua.)
--
-- KEYS[1]  lock hash PREFIX:{NAME} (see acquire.lua)
-- KEYS[2]  queue list PREFIX:{NAME}:queue (see queue.lua)
-- KEYS[3]  deadline sorted set PREFIX:{NAME}:timeouts (see queue.lua)
-- ARGV[1]  prefix of the waiters' channels, PREFIX:{NAME}:ch:
--
-- Returns 1 when a hold was removed (expired entries are then evicted and
-- '1' is published on the own channel of the head of the queue), 0 when
-- the lock was free.
if redis.call('del', KEYS[1]) == 1 then
  local now = now_ms()
  wake(evict(KEYS[2], KEYS[3], now), ARGV[1])
  settle(KEYS[2], KEYS[3], now)
  return 1
end
return 0
