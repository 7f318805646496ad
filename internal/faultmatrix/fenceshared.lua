-- The fenced store of the fault matrix for a lock that N owners may hold
-- at once (a semaphore of N permits): a counter that a hold may read or
-- increment only while fewer than N holds newer than it are inside. A
-- hold enters with its fencing token and leaves with it; since tokens
-- increase with every hold taken, N newer holds inside at once mean that
-- this one's permit was given to another: it is stale, and refused.
--
-- KEYS[1]   the counter
-- KEYS[2]   the sorted set of the tokens of the holds inside
-- ARGV[1]   "read": enter (unless refused) and return the counter;
--           "write": increment the counter (unless refused);
--           "leave": leave, refusing nothing
-- ARGV[2]   N, the holds allowed at once
-- ARGV[3]   the hold's token
-- Returns   the counter (after an increment) when accepted, -1 when N
--           holds with larger tokens are inside.
local op, n, token = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if op == 'leave' then
  redis.call('ZREM', KEYS[2], token)
  return tonumber(redis.call('GET', KEYS[1]) or '0')
end
if redis.call('ZCOUNT', KEYS[2], '(' .. token, '+inf') >= n then
  return -1
end
if op == 'read' then
  redis.call('ZADD', KEYS[2], token, token)
  return tonumber(redis.call('GET', KEYS[1]) or '0')
end
return redis.call('INCR', KEYS[1])
