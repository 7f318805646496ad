-- withdraw.lua: remove the intent of a writer that stopped waiting.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the writer's write hold OWNER:w (its intent's member)
-- ARGV[2]  readers' channel PREFIX:{NAME}:ch
--
-- It touches only the intent set, never the lock hash.
-- Returns 1 when the writer's intent was removed. If no other writer
-- waits, a hand-off of the freed lock to the writers is dropped too, and
-- every waiting reader is woken ('*' on ARGV[2]), since the intent may
-- have been all that held it back. Returns 0 when the writer had no
-- intent.
if redis.call('zrem', WRITERS, ARGV[1]) == 0 then
  return 0
end
redis.call('zremrangebyscore', WRITERS, '-inf', NOW)
local left = redis.call('zrange', WRITERS, 0, 1)
if #left == 0 or (#left == 1 and left[1] == HANDOFF) then
  redis.call('del', WRITERS)
  publish(ARGV[2], '*')
end
return 1
