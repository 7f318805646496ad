-- common.lua: what the scripts of package rwlock share beyond the prelude.
-- Each script is the operation's own file after what it uses of the
-- prelude and of this file (top-level locals only), so all of them take
-- the same seven KEYS, in this order (every name carries the lock's
-- {NAME} hash tag, so they share one Cluster slot); renew.lua takes the
-- first two alone:
--
-- KEYS[1]  lock hash PREFIX:{NAME}, in the prelude's hold layout with kind
--          'rwlock'. Its holds are OWNER:w (a write hold; one owner at
--          most) and OWNER:r (read holds), each with its count h, token
--          ':t:'..h and latest partial unlock ids ':u:'..h. Two more fields:
--            ':mode'   'write' while a write hold exists, else 'read'
--            ':claim'  '1' once a writer waiting in Lock was refused: the
--                      release that frees the lock hands it off (hand_off)
--            ':readturn'  after a downgrade, the deadline (ms of server
--                      time) of the readers' turn (read_turn)
--          The hash exists exactly while some hold is live.
-- KEYS[2]  lease set PREFIX:{NAME}:leases: member = hold (OWNER:w or
--          OWNER:r), score = the hold's lease deadline in ms of server time
--          (TIME, rounded down); when a lease is live, see the prelude's
--          lease sets. Every script that changes the lock
--          first drops the holds whose deadline has passed, so a crashed
--          owner's hold ends by itself and never keeps anyone else's
--          alive. The hash and this set both expire with the latest
--          deadline.
-- KEYS[3]  intent set PREFIX:{NAME}:writers: member = write hold OWNER:w of
--          a writer waiting in Lock, score = the intent's deadline in ms of
--          server time. A live intent holds back new readers (writer
--          preference); the waiting writer refreshes it, and it lapses if
--          the writer dies. One more member, ':handoff' (owner ids never
--          start with ':'), is not a writer: it reserves a lock its last
--          reader freed for the writers that claimed it (hand_off).
-- KEYS[4]  fencing-token counter PREFIX:{NAME}:fence, shared by read and
--          write holds (no TTL)
-- KEYS[5]  released tokens: the prefix PREFIX:{NAME}:released of their
--          keys (see the prelude)
-- KEYS[6]  the processes whose writers wait, PREFIX:{NAME}:wprocs (see the
--          prelude's wait_register): a release that frees the lock for
--          writers wakes one of them, on its own channel wch:ID
-- KEYS[7]  the process whose writers a free lock is kept for,
--          PREFIX:{NAME}:turn (see the prelude's wake_next): other
--          processes' writers are refused it meanwhile, so that a writer
--          that releases and locks again at once does not take it back
--
-- Scripts that create, delete or rewrite the hash call wrong_kind first and
-- return its error reply: a name held by another kind is left alone.

local HASH, LEASES, WRITERS, FENCE, RELEASED, WPROCS, TURN = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local KIND = 'rwlock'
local NOW = now_ms()

-- is_write reports whether hold h is a write hold.
local function is_write(h)
  return string.sub(h, -2) == ':w'
end

-- lease_end returns the ms left of the lease at rank i of the lease set
-- (0 the earliest, -1 the latest), as PTTL gives a key's: 0 in the last ms
-- it is live (see KEYS[2]); or -2 when no hold is left.
local function lease_end(i)
  local lease = redis.call('zrange', LEASES, i, i, 'withscores')
  if #lease == 0 then
    return -2
  end
  return tonumber(lease[2]) - NOW
end

-- lease_left returns the ms until the latest lease ends (the lock's
-- remaining TTL), or -2 when no hold is left.
local function lease_left()
  return lease_end(-1)
end

-- next_end returns the ms until the earliest lease ends, or -2 when no
-- hold is left. A refused acquire waits this long at most: each lease is
-- its own hold's, so the first one to end may be the last thing in the
-- way (a crashed reader's), while the latest may belong to a reader that
-- leaves without freeing the lock, and so wakes nobody.
local function next_end()
  return lease_end(0)
end

-- settle deletes the lock when no hold is left, and otherwise makes the
-- hash and the lease set expire with the latest lease. It returns true
-- while some hold is left.
local function settle()
  local ttl = lease_left()
  if ttl < 0 then
    redis.call('del', HASH, LEASES)
    return false
  end
  -- A PEXPIRE of 0 would delete the keys in the lease's last ms.
  ttl = math.max(ttl, 1)
  redis.call('pexpire', HASH, ttl)
  redis.call('pexpire', LEASES, ttl)
  return true
end

-- forget removes what of hold h lives outside its hash fields: its lease,
-- and the 'write' mode of a write hold. Call settle afterwards.
local function forget(h)
  redis.call('zrem', LEASES, h)
  if is_write(h) then
    redis.call('hset', HASH, ':mode', 'read')
  end
end

-- lease moves the deadline of hold h to now + ms, never earlier.
local function lease(h, ms)
  local cur = redis.call('zscore', LEASES, h)
  if not cur or tonumber(cur) < NOW + ms then
    redis.call('zadd', LEASES, NOW + ms, h)
  end
end

-- earliest returns the lock's two earliest leases, {hold, deadline, ...}
-- as ZRANGE 0 1 WITHSCORES gives them.
local function earliest()
  return redis.call('zrange', LEASES, 0, 1, 'withscores')
end

-- drop_ended drops the holds whose lease has ended, with the hash and the
-- lease set alone (the keys renew.lua names). It returns the two earliest
-- leases left (see earliest).
local function drop_ended()
  local first = earliest()
  if #first > 0 and lease_ended(first[2], NOW) then
    for _, h in ipairs(leases_ended(LEASES, NOW)) do
      hold_drop(HASH, h)
      forget(h)
    end
    settle()
    first = earliest()
  elseif #first == 0 then
    settle()
  end
  return first
end

-- drop_lapsed drops the lapsed intents.
local function drop_lapsed()
  redis.call('zremrangebyscore', WRITERS, '-inf', NOW)
end

-- purge drops the holds whose lease has ended and the lapsed intents. It
-- returns the two earliest leases left (see earliest).
local function purge()
  local first = drop_ended()
  drop_lapsed()
  return first
end

-- intent_left returns the ms until the last live intent lapses, or false
-- when no writer is waiting.
local function intent_left()
  local last = redis.call('zrange', WRITERS, -1, -1, 'withscores')
  if #last == 0 then
    return false
  end
  return tonumber(last[2]) - NOW
end

-- HANDOFF is the member of the intent set that reserves a freed lock for
-- the waiting writers.
local HANDOFF = ':handoff'

-- claim records, in the hash of a held lock, that a writer waits for it.
-- The claim goes with the hash: it asks for one hand-off, and a writer
-- still waiting claims the lock again each time it is refused.
local function claim()
  redis.call('hset', HASH, ':claim', '1')
end

-- claimed reports whether a writer claimed the lock while it was held;
-- ask before a release, which may delete the hash.
local function claimed()
  return redis.call('hexists', HASH, ':claim') == 1
end

-- hand_off reserves the lock, just freed by its last reader, for ms: new
-- readers stay out until a writer takes it or the reservation lapses. A
-- writer woken by the release needs a round trip or two to come; without
-- this the reader that freed the lock would take it again first, and a
-- writer without preference could lose it that way for seconds.
local function hand_off(ms)
  redis.call('zadd', WRITERS, NOW + ms, HANDOFF)
  redis.call('pexpire', WRITERS, intent_left())
end

-- handoff_left returns the ms until the hand-off lapses, or false when
-- there is none.
local function handoff_left()
  local s = tonumber(redis.call('zscore', WRITERS, HANDOFF))
  if not s or s <= NOW then
    return false
  end
  return s - NOW
end

-- READTURN is the hash field of a downgraded lock that holds the end of
-- the readers' turn (read_turn).
local READTURN = ':readturn'

-- read_turn gives the waiting readers a turn of ms after a downgrade: the
-- write hold ended, but the lock stays read-locked by the owner's own read
-- hold, so the writer woken with the readers can only register its intent
-- again, first as often as not, and that intent would keep the readers
-- out until it had the lock. For ms intents hold back no reader; the turn
-- goes with the hash, which the lock's last release deletes.
local function read_turn(ms)
  redis.call('hset', HASH, READTURN, NOW + ms)
end

-- readers_turn reports whether the readers' turn of a downgrade is on.
local function readers_turn()
  local s = tonumber(redis.call('hget', HASH, READTURN))
  return s ~= nil and s > NOW
end

-- wake_writer wakes one waiting writer: the head of the process whose
-- writers registered first, for which the free lock is kept a moment (see
-- the prelude's wake), or, when none is registered, one per process
-- sleeping on wch itself.
local function wake_writer(wch)
  wake(WPROCS, TURN, wch)
end

-- freed ends the release of the hold that freed the lock (settle returned
-- false): if a writer claimed it, the lock is handed off to the writers
-- for handoff ms, and one waiting writer is woken (wake_writer).
local function freed(was_claimed, handoff, wch)
  if was_claimed then
    hand_off(handoff)
  end
  wake_writer(wch)
end

-- reenter adds one to the count of hold h, which exists, for the acquire
-- with attempt id, and extends its lease to now + ms. It returns {count,
-- token}.
local function reenter(h, ms, id)
  local r = hold_reenter(HASH, h, id)
  lease(h, ms)
  settle()
  return r
end

-- begin starts every script that changes the lock: it returns the
-- WRONGKIND error reply when another kind holds the name (the script
-- returns it and changes nothing), and otherwise purges ended holds and
-- returns nil and the two earliest leases left (see purge). With
-- intents_later, it leaves the lapsed intents to the caller, which drops
-- them (drop_lapsed) or deletes the intent set.
local function begin(intents_later)
  local bad = wrong_kind(HASH, KIND)
  if bad then
    return bad
  end
  if intents_later then
    return nil, drop_ended()
  end
  return nil, purge()
end

-- fresh returns whether nothing of the lock is there: no hold, lease,
-- intent, hand-off or turn; nil when the acquire with attempt id was
-- undone before it came (see the prelude's existing). An acquire takes a
-- fresh lock at once (take_fresh): begin's purge and the checks of a busy
-- lock come to that.
local function fresh(id)
  local n = existing(RELEASED, id, HASH, LEASES, WRITERS, TURN)
  return n and n == 0
end

-- take_fresh begins hold h, in mode 'read' or 'write', on a fresh lock,
-- for the acquire with attempt id, with a lease of ms; it returns {1,
-- token}.
local function take_fresh(h, mode, ms, id)
  local token = hold_new(HASH, FENCE, KIND, h, id, ':mode', mode)
  redis.call('zadd', LEASES, NOW + ms, h)
  redis.call('pexpire', HASH, ms)
  redis.call('pexpire', LEASES, ms)
  return {1, token}
end

-- start starts an acquire of hold h, in mode 'read' or 'write', with a
-- lease of ms, by attempt id. It returns the reply to give at once, and
-- nil when the acquire goes on: {1, token} and true when it took a fresh
-- lock (take_fresh); the WRONGKIND error (begin); the answer to a re-sent
-- acquire (hold_again); {0, 0} to an acquire undone before it came, which
-- does nothing. Otherwise the lock's ended holds are purged.
local function start(h, mode, ms, id)
  local f = fresh(id)
  if f == nil then
    return {0, 0}
  elseif f then
    return take_fresh(h, mode, ms, id), true
  end
  local bad = begin()
  if bad then
    return bad
  end
  return hold_again(HASH, h, id)
end

-- release undoes one acquire of hold ARGV[1], with token ARGV[2] under
-- unlock id ARGV[3], remembering an ended hold's token for ARGV[4] ms (the
-- standard release ARGV, see hold_release); first is the lock's two
-- earliest leases, as begin returned them. A hold that ended is
-- forgotten and the lock settled: when its lease was the lock's only one,
-- the hash and the lease set are deleted at once (in one call, with the
-- key also if given); otherwise its lease goes, a write hold leaves the
-- mode 'read', the lock expires with the latest lease left (settle), and
-- also, if given, is deleted. Returns the remaining count, whether the
-- hold ended, and whether that freed the lock.
local function release(first, also)
  local h = ARGV[1]
  local last = #first == 2 and first[1] == h
  local count, ended = hold_release(HASH, RELEASED, h, ARGV[2], ARGV[3], tonumber(ARGV[4]), last and {LEASES, also})
  if not ended then
    return count, false, false
  end
  if last then
    return count, true, true
  end
  if also then
    redis.call('del', also)
  end
  forget(h)
  return count, true, not settle()
end

-- Operation follows.
