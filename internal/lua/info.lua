-- info.lua: store who holds a hold (host, process, since) beside it, for
-- operators (lockkit show). It never creates a key or changes a lease.
--
-- KEYS[1]  the lock's hash PREFIX:{NAME}
-- ARGV[1]  hold id h
-- ARGV[2]  the hold's fencing token
-- ARGV[3]  the information, a JSON object
--
-- Returns 1 when stored in field ':m:' .. h, 0 when the hold with that token
-- is not there (released or lost meanwhile).
if hold_live(KEYS[1], ARGV[1], ARGV[2]) then
  redis.call('hset', KEYS[1], ':m:' .. ARGV[1], ARGV[3])
  return 1
end
return 0
