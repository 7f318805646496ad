-- acquire.lua: take the hash lock for an owner, or re-enter it. The hash
-- lock has one hold per name; reentrant and spin locks are one, and so is
-- each node of a RedLock.
--
-- KEYS[1]  lock hash PREFIX:{NAME}: one hold (see the prelude)
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence (no TTL)
-- KEYS[3]  released tokens PREFIX:{NAME}:released (see release.lua)
-- ARGV[1]  owner id (the hold's id)
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every acquire the caller makes: a re-sent
--          acquire answers again what it answered, without counting twice
-- ARGV[4]  kind: 'reentrant', 'spin' or 'redlock'
--
-- Returns {count, token} when the owner now holds the lock: count 1 and a
-- newly minted token for a fresh hold, count > 1 and the hold's token on
-- re-entry (the lease is extended to ARGV[2], never shortened). Returns
-- {0, pttl} when another owner holds it: pttl is its remaining lease in ms
-- (-1 if it has none). A WRONGKIND error when another kind holds the name.
local hash, owner, lease, id, kind = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local first = acquire_first(hash, kind, owner, id)
if first then
  return first
end
if redis.call('exists', hash) == 0 then
  local token = hold_new(hash, KEYS[2], kind, owner, id)
  redis.call('pexpire', hash, lease)
  return {1, token}
end
if redis.call('hexists', hash, owner) == 1 then
  local r = hold_reenter(hash, owner, id)
  if redis.call('pttl', hash) < lease then
    redis.call('pexpire', hash, lease)
  end
  return r
end
return {0, redis.call('pttl', hash)}
