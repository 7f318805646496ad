-- lock.lua: take the write lock for an owner, or re-enter it.
--
-- KEYS     the five keys of the lock, in the order of common.lua
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
-- ARGV[3]  intent timeout in ms: when the lock is busy, the owner's intent
--          is registered or refreshed until now + ARGV[3], which holds back
--          new readers; 0 registers none (TryLock, or no writer preference)
--
-- Returns {count, token} when the owner now holds the write lock: count 1
-- and a newly minted token for a fresh hold, count > 1 and the hold's token
-- on re-entry; the owner's intent, if any, is removed.
-- Returns {0, wait} when another owner holds the lock, for reading or
-- writing: wait is the time left of its latest lease, in ms.
-- Returns {-1, 0} when the owner holds the read lock but not the write
-- lock: a read-to-write upgrade, which would wait for itself forever.
purge()
local owner, ms, intent = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local w = owner .. ':w'
if redis.call('hexists', HASH, w) == 1 then
  redis.call('zrem', WRITERS, owner)
  return reenter(w, ms)
end
if redis.call('hexists', HASH, owner .. ':r') == 1 then
  return {-1, 0}
end
if redis.call('exists', HASH) == 0 then
  local token = redis.call('incr', FENCE)
  redis.call('hset', HASH, ':mode', 'write', w, 1, w .. ':t', token)
  lease(w, ms)
  settle()
  redis.call('zrem', WRITERS, owner)
  return {1, token}
end
if intent > 0 then
  redis.call('zadd', WRITERS, NOW + intent, owner)
  redis.call('pexpire', WRITERS, intent_left())
end
return {0, lease_left()}
