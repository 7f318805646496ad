-- redlock_renew.lua: extend the lease of one node's hold, if it is still
-- there (the node's watchdog sends it).
--
-- KEYS     as in redlock_acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  this node's token of the hold
-- ARGV[3]  lease in ms
--
-- Returns 1 when the lease was extended, 0 when the hold is gone.
if hold_live(KEYS[1], ARGV[1], ARGV[2]) then
  redis.call('pexpire', KEYS[1], ARGV[3])
  return 1
end
return 0
