-- renew.lua: extend the lease of one hold, if it is still there.
--
-- KEYS[1]  the lock's hash, as in acquire.lua; no other key is needed, so
--          that a renewal runs while the lock's Cluster slot moves
-- ARGV[1]  owner id
-- ARGV[2]  fencing token of the hold
-- ARGV[3]  lease in ms; 0 to verify a fixed lease, changing nothing
--
-- Returns 1 when the lease was extended (or, verified, the hold is there),
-- 0 when the hold is gone.
if hold_live(KEYS[1], ARGV[1], ARGV[2]) then
  if ARGV[3] ~= '0' then
    redis.call('pexpire', KEYS[1], ARGV[3])
  end
  return 1
end
return 0
