-- lock.lua: take the write lock for an owner, or re-enter it.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the owner's write hold OWNER:w
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every acquire the caller makes: a re-sent
--          acquire that took the hold answers again, without counting twice
-- ARGV[4]  the owner's read hold OWNER:r
-- ARGV[5]  intent timeout in ms: when the lock is busy, the owner's intent
--          is registered or refreshed until now + ARGV[5], which holds back
--          new readers; 0 registers none (TryLock, or no writer preference)
-- ARGV[6]  '1' when the owner waits in Lock: when the lock is busy, it is
--          claimed, so that the read release that frees it hands it off
--          to the waiting writers (see hand_off in common.lua); '0' for
--          TryLock
-- ARGV[7]  optional: id of the caller's process when its writers wait to
--          be woken on their own channel; absent or empty for none
-- ARGV[8]  with ARGV[7], as ARGV[6] of the hash lock's acquire.lua: '0'
--          the caller has not joined its process's waiting writers, '1' it
--          is the only one, '2' others wait behind it, 'n' it will not wait
--
-- Returns {count, token} when the owner now holds the write lock: count 1
-- and a newly minted token for a fresh hold, count > 1 and the hold's token
-- on re-entry (its lease is extended to ARGV[2], never shortened). The
-- owner's intent, if any, is removed, and so is a hand-off: a writer took
-- the lock.
-- Returns {0, wait} when another owner holds the lock, for reading or
-- writing: wait is the ms until the earliest live lease ends, the first
-- moment a hold may end without a release (a reader that crashed). While
-- the free lock is kept for the writers of another process (KEYS[7]),
-- {0, wait} too: the time it is still kept, and 100 ms more for each
-- process registered ahead of the caller's (see the prelude's kept_wait:
-- the caller tries again then unless woken, and is refused with the lease
-- of that process's hold if it took the lock; if it never does, the first
-- in line takes it). The process named by
-- ARGV[7] may take it, a TryLock of it too.
-- Returns {-1, 0} when the owner holds the read lock but not the write
-- lock: a read-to-write upgrade, which would wait for itself forever.
-- Returns {0, 0} to an acquire undone before it came (see the prelude's
-- undone), which does nothing. A WRONGKIND error when another kind holds
-- the name.
local w, ms, id, r, intent, claims = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6] == '1'
local proc, waiters = ARGV[7] or '', ARGV[8]
-- taken ends or keeps the registration of the caller's process, which got
-- the lock, as ARGV[8] says.
local function taken(reply)
  wait_took(WPROCS, proc, waiters, ms)
  return reply
end
local reply, took = start(w, 'write', ms, id)
if took then
  return taken(reply)
elseif reply then
  return reply
end
if redis.call('hexists', HASH, w) == 1 then
  redis.call('zrem', WRITERS, w)
  return taken(reenter(w, ms, id))
end
if redis.call('hexists', HASH, r) == 1 then
  return {-1, 0}
end
local free = redis.call('exists', HASH) == 0
-- A free lock may be kept for another process's writers (kept: the wait).
local kept = free and kept_for(TURN, proc)
if free and not kept then
  local token = hold_new(HASH, FENCE, KIND, w, id, ':mode', 'write')
  lease(w, ms)
  settle()
  redis.call('zrem', WRITERS, w, HANDOFF)
  return taken({1, token})
end
local wait = kept
if not wait then
  -- Held: claim it, and wait for the earliest lease.
  if claims then
    claim()
  end
  wait = next_end()
end
if intent > 0 then
  redis.call('zadd', WRITERS, NOW + intent, w)
  redis.call('pexpire', WRITERS, intent_left())
end
return {0, wait_refused(WPROCS, proc, waiters, wait, kept)}
