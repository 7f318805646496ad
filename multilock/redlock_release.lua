-- redlock_release.lua: undo one acquire of an owner's hold on one node; the
-- last one frees the lock there.
--
-- KEYS     as in redlock_acquire.lua
-- ARGV[1]  owner id
-- ARGV[2]  this node's token of the hold being released
-- ARGV[3]  unlock id: the same for every retry of one Unlock
-- ARGV[4]  how long released tokens are remembered, in ms
--
-- Returns the owner's remaining hold count: 0 when the lock was freed on
-- this node (the key is deleted), n > 0 when the owner still holds it
-- (another lock value sharing the owner id does). A retry of a release
-- that already took effect returns the same answer again instead of
-- releasing twice. Returns -1 when this hold is not there: it expired or
-- was removed, or a newer hold took its place.
--
-- There is no kind check: a hold is matched by its id and its token, and
-- a node never mints a token twice for a name, so another kind's hash
-- cannot hold it (the reply is then -1) and is never touched.
local count, ended = hold_release(KEYS[1], KEYS[3], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
if ended then
  redis.call('del', KEYS[1])
end
return count
