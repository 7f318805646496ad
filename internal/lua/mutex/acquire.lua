-- acquire.lua: take the hash lock for an owner, or re-enter it. The hash
-- lock has one hold per name; reentrant and spin locks are one, and so is
-- each node of a RedLock.
--
-- KEYS[1]  lock hash PREFIX:{NAME}: one hold (see the prelude)
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- KEYS[3]  released tokens: the prefix PREFIX:{NAME}:released of their
--          keys (see the prelude)
-- KEYS[4]  waiting processes PREFIX:{NAME}:procs (see the prelude)
-- KEYS[5]  the process a free lock is kept for, PREFIX:{NAME}:turn (see
--          the prelude's wake_next)
-- ARGV[1]  owner id (the hold's id)
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every acquire the caller makes: a re-sent
--          acquire answers again what it answered, without counting twice
-- ARGV[4]  kind: 'reentrant', 'spin' or 'redlock'
-- ARGV[5]  optional: id of the caller's process when it waits to be woken
--          on its own channel; absent or empty for none
-- ARGV[6]  with ARGV[5]: the waiters of that process, '0' when the caller
--          has not joined them (its registration is left as it is), '1'
--          when it is the only one (taking the lock ends the registration),
--          '2' when others wait behind it (they stay registered, at the back
--          of the line); 'n' when the caller will not wait (a TryLock: it
--          may take a lock kept for its process, and registers nothing)
-- ARGV[7]  optional: '1' when the owner may not re-enter its hold
--          (lockkit.WithoutReentry): the owner's own hold refuses the
--          acquire as another owner's does; absent or '0' to re-enter.
--          With it, ARGV[5] and ARGV[6] must be given ('' and '0' for
--          none)
--
-- Returns {count, token} when the owner now holds the lock: count 1 and a
-- newly minted token for a fresh hold, count > 1 and the hold's token on
-- re-entry (the lease is extended to ARGV[2], never shortened). Returns
-- {0, pttl} when another owner holds it (or, with ARGV[7], the owner
-- itself): pttl is its remaining lease in ms (-1 if it has none), and a
-- process named by ARGV[5] is registered as waiting. While the free lock
-- is kept for another process, {0, wait}: the time it is still kept, and
-- 100 ms more for each process registered ahead of the caller's (see the
-- prelude's kept_wait: the caller tries again then unless woken, and is
-- refused with the lease of that process's hold if it took the lock; if
-- it never does, the first in line takes it).
-- Returns {0, 0} to an acquire undone before it came (see the prelude's
-- undone), which does nothing. A WRONGKIND error when another kind holds
-- the name.
local hash, turn, owner, lease, id, kind = KEYS[1], KEYS[5], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local proc, waiters, reenter = ARGV[5] or '', ARGV[6], ARGV[7] ~= '1'
local r
local function refuse(wait, kept)
  return {0, wait_refused(KEYS[4], proc, waiters, wait, kept)}
end
local n = existing(KEYS[3], id, hash, turn)
if not n then
  return {0, 0}
end
if n == 1 and redis.call('exists', hash) == 0 then
  -- Free, and kept for a woken process: this one, or another.
  local wait = kept_for(turn, proc)
  if wait then
    return refuse(wait, true)
  end
  n = 0
end
if n == 0 then
  -- Free: the one call an uncontended acquire makes before taking it.
  r = {1, hold_new(hash, KEYS[2], kind, owner, id)}
  redis.call('pexpire', hash, lease)
else
  local first, v = acquire_first(hash, kind, owner, id)
  if first then
    return first
  end
  if not v[2] or not reenter then
    return refuse(redis.call('pttl', hash))
  end
  r = hold_reenter(hash, owner, id, v[3], v[4])
  if redis.call('pttl', hash) < lease then
    redis.call('pexpire', hash, lease)
  end
end
wait_took(KEYS[4], proc, waiters, lease)
return r
