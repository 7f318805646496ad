-- rlock.lua: take the read lock for an owner, or re-enter it.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  the owner's read hold OWNER:r
-- ARGV[2]  lease in ms
-- ARGV[3]  attempt id, new for every acquire the caller makes: a re-sent
--          acquire that took the hold answers again, without counting twice
-- ARGV[4]  the owner's write hold OWNER:w
-- ARGV[5]  '1' when waiting writers hold back new readers (writer
--          preference), '0' when they do not
--
-- An owner that holds the read lock re-enters it, and the owner of the
-- write lock may take the read lock too (a downgrade once it unlocks the
-- write lock), whatever writers wait. Any other owner gets a read hold
-- unless a writer holds the lock, the lock is free but handed off to the
-- waiting writers (see hand_off in common.lua), or, with ARGV[5] = '1', a
-- writer waits, unless a downgrade gave the readers their turn (see
-- read_turn in common.lua).
--
-- Returns {count, token} when the owner now holds the read lock: count 1
-- and a newly minted token for a fresh hold, count > 1 and the hold's token
-- on re-entry (its lease is extended to ARGV[2], never shortened).
-- Returns {0, wait} when refused: wait is the ms until the earliest live
-- lease ends when a writer holds the lock (its write hold, or its own read
-- hold), the ms until the hand-off lapses, or the ms until the last
-- waiting writer's intent lapses; {0, 0} to an acquire undone before it
-- came (see the prelude's undone), which does nothing. A WRONGKIND error
-- when another kind holds the name.
local r, ms, id, w = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local reply = start(r, 'read', ms, id)
if reply then
  return reply
end
if redis.call('hexists', HASH, r) == 1 then
  return reenter(r, ms, id)
end
if redis.call('hexists', HASH, w) == 0 then
  if redis.call('hget', HASH, ':mode') == 'write' then
    return {0, next_end()}
  end
  if redis.call('exists', HASH) == 0 then
    local left = handoff_left()
    if left then
      return {0, left}
    end
  end
  if ARGV[5] == '1' then
    local left = intent_left()
    if left and not readers_turn() then
      return {0, left}
    end
  end
end
local token = hold_new(HASH, FENCE, KIND, r, id)
redis.call('hsetnx', HASH, ':mode', 'read')
lease(r, ms)
settle()
return {1, token}
