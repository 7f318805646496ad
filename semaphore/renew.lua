-- renew.lua: extend a live hold's lease (the watchdog's renewal).
--
-- KEYS[1]  the hash, KEYS[2] the leases (KEYS[1] and KEYS[4] of
--          semaphore.lua): the keys a live hold keeps, and no other, so
--          that a renewal runs while the semaphore's Cluster slot moves to
--          another master (the nodes refuse a script that names a key they
--          do not have until the move ends)
-- ARGV[1]  hold id
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  lease in ms; 0 to verify a fixed lease, changing nothing
--
-- Returns 1 when the lease was extended to ARGV[3] from now (or, verified,
-- the hold is there), 0 when the hold is gone: released, or its lease
-- ended (a later script frees it).
local hash, leases = KEYS[1], KEYS[2]
local h, token, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local now = now_ms()
if lease_ended(redis.call('zscore', leases, h), now) or not hold_live(hash, h, token) then
  return 0
end
if lease == 0 then
  return 1
end
-- The keys' expiries go first, set to what they are if that is later: a
-- server whose memory is full refuses the ZADD only to a script that has
-- written nothing yet (see the prelude's hold_release).
for _, key in ipairs({hash, leases}) do
  redis.call('pexpire', key, math.max(redis.call('pttl', key), lease))
end
redis.call('zadd', leases, now + lease, h)
return 1
