-- common.lua: definitions shared by every script of package rwlock. Each
-- script is this file followed by the operation's own file, so all of them
-- take the same five KEYS, in this order (every name carries the lock's
-- {NAME} hash tag, so they share one Cluster slot):
--
-- KEYS[1]  lock hash PREFIX:{NAME}; it exists while any hold is live:
--            ':mode'        'write' while a write hold exists, else 'read'
--            OWNER..':w'    write hold count of OWNER (one owner at most)
--            OWNER..':r'    read hold count of OWNER
--            HOLD..':t'     fencing token of hold HOLD (OWNER:w or OWNER:r)
--            HOLD..':u'     id of HOLD's last partial unlock, so that a
--                           retried unlock is not applied twice
--          Owner ids never start with ':', and no suffix above ends
--          another, so owner fields never collide with each other or with
--          ':mode'.
-- KEYS[2]  lease set PREFIX:{NAME}:leases: member = hold (OWNER:w or
--          OWNER:r), score = the hold's lease deadline in ms of server time
--          (TIME). Every script first drops the holds whose deadline has
--          passed, so a crashed owner's hold ends by itself and never keeps
--          anyone else's alive. The hash and this set both expire at the
--          latest deadline.
-- KEYS[3]  intent set PREFIX:{NAME}:writers: member = owner id of a writer
--          waiting in Lock, score = the intent's deadline in ms of server
--          time. A live intent holds back new readers (writer preference);
--          the waiting writer refreshes it, and it lapses if the writer dies.
-- KEYS[4]  fencing-token counter PREFIX:{NAME}:fence, shared by read and
--          write holds (no TTL)
-- KEYS[5]  sorted set PREFIX:{NAME}:released of recently released tokens,
--          scored by release time in ms

local HASH, LEASES, WRITERS, FENCE, RELEASED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local NOW
do
  local t = redis.call('time')
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- lease_left returns the ms until the latest lease ends (the lock's
-- remaining TTL), or -2 when no hold is left.
local function lease_left()
  local last = redis.call('zrange', LEASES, -1, -1, 'withscores')
  if #last == 0 then
    return -2
  end
  return tonumber(last[2]) - NOW
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
  redis.call('pexpire', HASH, ttl)
  redis.call('pexpire', LEASES, ttl)
  return true
end

-- drop removes hold h: its count, token, unlock id and lease. Dropping the
-- write hold leaves the mode 'read'; call settle afterwards.
local function drop(h)
  redis.call('hdel', HASH, h, h .. ':t', h .. ':u')
  redis.call('zrem', LEASES, h)
  if string.sub(h, -2) == ':w' then
    redis.call('hset', HASH, ':mode', 'read')
  end
end

-- lease sets the deadline of hold h to now + ms.
local function lease(h, ms)
  redis.call('zadd', LEASES, NOW + ms, h)
end

-- purge drops the holds whose lease has ended and the lapsed intents.
local function purge()
  local dead = redis.call('zrangebyscore', LEASES, '-inf', NOW)
  for _, h in ipairs(dead) do
    drop(h)
  end
  if #dead > 0 or redis.call('zcard', LEASES) == 0 then
    settle()
  end
  redis.call('zremrangebyscore', WRITERS, '-inf', NOW)
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

-- remember records token as released, for window ms.
local function remember(token, window)
  redis.call('zadd', RELEASED, NOW, token)
  redis.call('zremrangebyscore', RELEASED, '-inf', NOW - window)
  redis.call('pexpire', RELEASED, window)
end

-- reenter adds one to the count of hold h, which exists, and renews its
-- lease to now + ms. It returns {count, token} of the hold.
local function reenter(h, ms)
  local count = redis.call('hincrby', HASH, h, 1)
  redis.call('hdel', HASH, h .. ':u')
  lease(h, ms)
  settle()
  return {count, tonumber(redis.call('hget', HASH, h .. ':t'))}
end

-- release undoes one acquire of hold h with token, under unlock id (the
-- same for every retry of one unlock); released tokens are remembered for
-- window ms. It returns the hold's remaining count and whether this call
-- ended the hold (then h is dropped: call settle). A retry of an unlock
-- that already took effect returns the same count again, and 0 once the
-- hold ended. It returns -1 when the hold is not there: its lease ended,
-- it was removed, or a newer hold took its place.
local function release(h, token, id, window)
  local count = redis.call('hget', HASH, h)
  if count and redis.call('hget', HASH, h .. ':t') == token then
    if redis.call('hget', HASH, h .. ':u') == id then
      return tonumber(count), false
    end
    count = redis.call('hincrby', HASH, h, -1)
    if count > 0 then
      redis.call('hset', HASH, h .. ':u', id)
      return count, false
    end
    drop(h)
    remember(token, window)
    return 0, true
  end
  if redis.call('zscore', RELEASED, token) then
    return 0, false
  end
  return -1, false
end

-- Operation follows.
