-- prelude.lua: the helpers every lockkit script is built from. A script is
-- this file followed by its kind's own file (see lua.go); the prelude reads
-- no KEYS or ARGV itself: every helper takes the names it works on.
--
-- A lock's hash, PREFIX:{NAME}, holds one or more holds. A hold has an id
-- h (an owner id, or an owner id with a suffix such as ':w'), and fields:
--   h           hold count: how many acquires are not released yet
--   ':t:' .. h  fencing token minted when the hold began
--   ':u:' .. h  ids of the hold's latest partial unlocks (see hold_release)
--   ':a:' .. h  ids of the hold's latest acquires (see Acquires)
--   ':m:' .. h  who holds it, a JSON object (WithHolderInfo; info.lua)
--   ':q:' .. h  the deadline of the queue entry a hold was taken from
--               (fair, semaphore: see internal/lua/queue.lua's put_back)
--   ':kind'     the lock kind owning the name (one per hash)
-- Owner ids never start with ':', so these fields never collide.
--
-- The fencing counter PREFIX:{NAME}:fence has no TTL: tokens strictly
-- increase per name. A token is the larger of the counter + 1 and the
-- server's time in µs, so that tokens keep increasing even across a
-- restart that lost the counter (as long as the server's clock does not
-- go back). A key PREFIX:{NAME}:released:TOKEN remembers, for a short
-- while (it expires), that the hold with TOKEN ended by its release, so
-- that a retried release whose first reply was lost reports success
-- instead of a loss. A key PREFIX:{NAME}:released:ATTEMPT marks, for
-- undone_window ms, an acquire undone before it reached the server (see
-- undone).

-- clock is the server's time as TIME gives it, {seconds, µs}, once read
-- (see server_time).
local clock

-- server_time returns the server's time, {seconds, µs}: read once per
-- script, which runs at one instant as far as the data can tell, so that
-- the helpers that need the time share one call.
local function server_time()
  if not clock then
    clock = redis.call('time')
  end
  return clock
end

-- now_ms returns the server's time in ms.
local function now_ms()
  local t = server_time()
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Lease sets. A kind with several holds at once (a read-write lock's
-- readers, a semaphore's permits) keeps their leases in a sorted set: a
-- hold's score is its deadline, the server's time in ms. A lease is live
-- while that time is at most its deadline, as a key lives until the time
-- is past its expiry: it never ends before the time it was given for.

-- lease_ended reports whether the lease with deadline d (a score; false
-- or nil for a hold not in the set) has ended at now.
local function lease_ended(d, now)
  return not d or tonumber(d) < now
end

-- leases_ended returns the holds of the lease set key whose lease has
-- ended at now.
local function leases_ended(key, now)
  return redis.call('zrangebyscore', key, '-inf', '(' .. string.format('%d', now))
end

-- leases_live returns the holds of the lease set key whose lease is live
-- at now, each followed by its deadline, as ZRANGEBYSCORE WITHSCORES
-- gives them.
local function leases_live(key, now)
  return redis.call('zrangebyscore', key, string.format('%d', now), '+inf', 'withscores')
end

-- Channels. A channel name that begins with '{s}' is a shard channel of a
-- Cluster client: the name after the mark, in the lock's slot. Where the
-- server has sharded pub/sub (Redis 7) publish sends it with SPUBLISH,
-- which reaches the slot's shard alone and counts every subscriber, who
-- subscribe at the slot's master; on an older server with PUBLISH, which
-- every node of the Cluster relays and whose count covers this node's
-- subscribers only. Any other name is published with PUBLISH.
local shard_mark = '{s}'

-- publish publishes msg on channel (see Channels) and returns how many
-- subscribers received it.
local function publish(channel, msg)
  if string.sub(channel, 1, 3) ~= shard_mark then
    return redis.call('publish', channel, msg)
  end
  if redis.REDIS_VERSION_NUM then
    return redis.call('spublish', string.sub(channel, 4), msg)
  end
  return redis.call('publish', string.sub(channel, 4), msg)
end

-- counted reports whether publish on channel counts every subscriber, so
-- that a count of 0 means that nobody listens.
local function counted(channel)
  return string.sub(channel, 1, 3) ~= shard_mark or redis.REDIS_VERSION_NUM ~= nil
end

-- mint mints a new fencing token of the counter fence and stores it: the
-- larger of the counter + 1 and the server's time in µs. It returns the
-- token as a number (for the reply) and as the decimal string stored in
-- the counter, to store wherever a token is kept: redis.call may render a
-- number argument in exponent form (1.7e+15), which would not compare equal
-- to the token a client sends back. Lua numbers are doubles, so tokens are
-- exact below 2^53, which the time in µs reaches in the year 2255.
--
-- The time is stored first, reading the counter in the same call (SET
-- with GET); only when the counter had reached the time already (the
-- clock went back, or two tokens in one µs) is the token set again.
local function mint(fence)
  local t = server_time()
  local token = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local s = string.format('%d', token)
  local last = tonumber(redis.call('set', fence, s, 'GET') or '0')
  if last >= token then
    token = last + 1
    s = string.format('%d', token)
    redis.call('set', fence, s)
  end
  return token, s
end

-- kind_error returns the WRONGKIND error reply when k, the kind marked on
-- a lock's hash (false when unmarked), is not kind; else nil. The reply
-- names no key: the caller's error names the lock, quoted, and a key
-- would carry the name's bytes raw (a newline, which the server turns
-- into a space, a terminal escape, bytes that are not UTF-8).
local function kind_error(k, kind)
  if k and k ~= kind then
    return redis.error_reply('WRONGKIND lockkit: the name is a ' .. k .. ' lock, not ' .. kind)
  end
  return nil
end

-- wrong_kind returns an error reply when hash belongs to a kind other than
-- kind, else nil. Scripts call it first and return its reply if any, so
-- that nothing is changed.
local function wrong_kind(hash, kind)
  return kind_error(redis.call('hget', hash, ':kind'), kind)
end

-- Acquires. ':a:' .. h lists the attempt ids of hold h's latest
-- acquires, oldest first, separated by spaces, ids_kept of them at the
-- most. A re-sent acquire finds its id there (hold_again), and so does
-- the undo of an acquire in doubt (hold_undo), also after acquires of
-- other values of a shared owner id came. An undone acquire stays listed
-- with a leading '-', so that a late copy of it counts nothing. ':u:' ..
-- h lists the unlock ids of its latest partial unlocks alike (see
-- hold_release).
local ids_kept = 16

-- listed reports whether the list of ids (false when unset) holds id.
local function listed(list, id)
  return list and string.find(' ' .. list .. ' ', ' ' .. id .. ' ', 1, true) ~= nil
end

-- acquired reports whether the acquires list holds the acquire with
-- attempt id, undone or not.
local function acquired(list, id)
  return listed(list, id) or listed(list, '-' .. id)
end

-- ids_add returns the list of ids (false when unset) with id added last;
-- the oldest id is dropped when ids_kept are listed already.
local function ids_add(list, id)
  if not list or list == '' then
    return id
  end
  local n = 1
  for _ in string.gmatch(list, ' ') do
    n = n + 1
  end
  if n >= ids_kept then
    list = string.sub(list, string.find(list, ' ', 1, true) + 1)
  end
  return list .. ' ' .. id
end

-- acquires_undone returns the acquires list, which holds id, with id
-- marked undone.
local function acquires_undone(list, id)
  local s = ' ' .. list .. ' '
  local i = string.find(s, ' ' .. id .. ' ', 1, true)
  return string.sub(s, 2, i) .. '-' .. string.sub(s, i + 1, -2)
end

-- Undone acquires. The undo of an acquire whose reply was lost may reach
-- the server before the acquire does: the acquire was held up on a
-- connection the client gave up on (a network cut, a stalled proxy) and
-- is delivered later. An undo that finds nothing of its acquire marks the
-- attempt id as undone, in the key released .. ':' .. id, and an acquire
-- so marked does nothing when it comes. The mark lasts undone_window ms:
-- longer than TCP waits between two sends of unanswered data (2 min), so
-- that an acquire held up by a cut arrives, once the cut heals, before its
-- mark expires. Attempt ids are never bare numbers, so the marks never
-- collide with the released tokens of the same prefix.
local undone_window = 300000

-- undo_mark marks the acquire with attempt id as undone. The mark takes
-- memory: a server whose memory is full refuses it, and the undo goes on
-- without it.
local function undo_mark(released, id)
  redis.pcall('set', released .. ':' .. id, '1', 'PX', undone_window)
end

-- undone reports whether the acquire with attempt id was undone before it
-- came: the acquire then does nothing.
local function undone(released, id)
  return redis.call('exists', released .. ':' .. id) == 1
end

-- existing returns how many of the keys that follow exist, or nil when the
-- acquire with attempt id was undone before it came (see undone): an
-- acquire's first call, which tells both in one call when neither is the
-- case (an uncontended acquire's).
local function existing(released, id, ...)
  local n = redis.call('exists', released .. ':' .. id, ...)
  if n > 0 and undone(released, id) then
    return nil
  end
  return n
end

-- hold_new begins hold h (count 1) with a freshly minted token, by the
-- acquire with attempt id, and marks the hash as kind's; the optional
-- field, value pairs that follow are set in the same call. It returns the
-- token. The caller sets the expiry.
local function hold_new(hash, fence, kind, h, id, ...)
  local token, s = mint(fence)
  redis.call('hset', hash, ':kind', kind, h, 1, ':t:' .. h, s, ':a:' .. h, id, ...)
  return token
end

-- hold_reenter adds one to the count of hold h, which exists, for the
-- acquire with attempt id, and returns {count, token}. list and token are
-- the hold's acquires list and token when the caller read them already
-- (acquire_first does); without token, they are read here. The id of the
-- last partial unlock stays: an unlock whose reply was lost before this
-- re-entry is retried with it, and must find itself done.
local function hold_reenter(hash, h, id, list, token)
  if not token then
    local v = redis.call('hmget', hash, ':a:' .. h, ':t:' .. h)
    list, token = v[1], v[2]
  end
  local count = redis.call('hincrby', hash, h, 1)
  redis.call('hset', hash, ':a:' .. h, ids_add(list, id))
  return {count, tonumber(token)}
end

-- again returns {count, token} of a hold whose count, acquires list and
-- token are as read (false where unset) when it lists the acquire with
-- attempt id (see Acquires): the client re-sent that acquire (go-redis
-- retries a command whose reply timed out), which must not count twice.
-- Else nil.
local function again(count, list, token, id)
  if count and acquired(list, id) then
    return {tonumber(count), tonumber(token)}
  end
  return nil
end

-- hold_again is again for hold h, read from the hash.
local function hold_again(hash, h, id)
  local v = redis.call('hmget', hash, h, ':a:' .. h, ':t:' .. h)
  return again(v[1], v[2], v[3], id)
end

-- acquire_first starts an acquire of hold h, by attempt id, on a hash of
-- kind: it returns the reply to give at once, the WRONGKIND error when
-- another kind holds the hash or the answer to a re-sent acquire (see
-- again), and nil when the acquire goes on. It reads the hash once,
-- and returns what it read second, for the acquire to go on with: the
-- fields {':kind', h, ':a:' .. h, ':t:' .. h}, false where unset (h's
-- count is false when h holds nothing).
local function acquire_first(hash, kind, h, id)
  local v = redis.call('hmget', hash, ':kind', h, ':a:' .. h, ':t:' .. h)
  local bad = kind_error(v[1], kind)
  if bad then
    return bad, v
  end
  return again(v[2], v[3], v[4], id), v
end

-- hold_drop removes hold h's fields.
local function hold_drop(hash, h)
  redis.call('hdel', hash, h, ':t:' .. h, ':u:' .. h, ':a:' .. h, ':m:' .. h)
end

-- Released tokens. released is the prefix PREFIX:{NAME}:released; the
-- key released .. ':' .. token is there, for window ms, when the hold
-- with token ended by a release. One key per token, each with its own
-- expiry, makes remembering one call and forgetting none.

-- remember records token as released, for window ms.
local function remember(released, token, window)
  redis.call('set', released .. ':' .. token, '1', 'PX', window)
end

-- remembered reports whether token was released in the last window ms.
local function remembered(released, token)
  return redis.call('exists', released .. ':' .. token) == 1
end

-- Forced releases. A ForceUnlock gives its script a force id, new for
-- each call and the same in a re-send of it (go-redis re-sends a command
-- whose reply was lost): the script that removed holds remembers the id
-- as a release remembers its token, so that a re-send reports the removal
-- again instead of finding the lock free. Force ids are never bare
-- numbers, so they never collide with the tokens.

-- hold_release undoes one acquire of hold h with token, under unlock id
-- (the same for every retry of one unlock). An empty token names the
-- owner's current hold, whatever its token: a value that shares the owner
-- id but never took the hold releases it so. It returns the remaining count
-- and whether this call ended the hold: then h's fields are dropped (with
-- gone, a list of keys, the whole hash is deleted, and those keys with it
-- in the same call: {} for the hash alone) and its token remembered for
-- window ms; the caller frees or settles the hash. A retry of an unlock that took
-- effect changes nothing and returns the hold's count, or 0 once the hold
-- ended: a partial unlock lists its id in ':u:' .. h (see Acquires), where
-- its retry finds it also after partial unlocks by other values of a
-- shared owner id.
-- It returns -1 when the hold is not there: it expired, was removed, or a
-- newer hold took its place. With kind, it first returns the WRONGKIND
-- error reply (and false) when the hash is another kind's, reading that
-- in the same call; nothing is changed then.
--
-- Each path writes first what takes no memory (the ended hold goes
-- before its token is remembered; a count cut back drops the unlock ids
-- before it sets them again with the new one): a server whose memory is full
-- (maxmemory with noeviction) refuses a command that may take memory only
-- to a script that has written nothing yet, so a release still frees a
-- lock, or cuts a re-entered hold back, then.
local function hold_release(hash, released, h, token, id, window, gone, kind)
  local v = redis.call('hmget', hash, h, ':t:' .. h, ':u:' .. h, ':kind')
  if kind then
    local bad = kind_error(v[4], kind)
    if bad then
      return bad, false
    end
  end
  local count, held = tonumber(v[1]), v[2]
  if token == '' then
    token = held or ''
  end
  if count and held == token then
    if listed(v[3], id) then
      return count, false
    end
    count = count - 1
    if count > 0 then
      -- The unlock ids go first, for the reason below.
      redis.call('hdel', hash, ':u:' .. h)
      redis.call('hset', hash, h, count, ':u:' .. h, ids_add(v[3], id))
      return count, false
    end
    if gone then
      redis.call('del', hash, unpack(gone))
    else
      hold_drop(hash, h)
    end
    remember(released, token, window)
    return 0, true
  end
  if remembered(released, token) then
    return 0, false
  end
  return -1, false
end

-- hold_release_all is the release of a lock whose hash holds one hold:
-- hold_release of hold h (with kind, if given), which deletes the hash
-- when it ended the hold; freed() is then called to wake whoever comes
-- next. It returns the remaining count, or the WRONGKIND error reply, as
-- hold_release does.
local function hold_release_all(hash, released, h, token, id, window, freed, kind)
  local count, ended = hold_release(hash, released, h, token, id, window, {}, kind)
  if ended then
    freed()
  end
  return count
end

-- hold_cut is hold_undo's cut of hold h, given the fields it read: {count,
-- acquires list, token}.
local function hold_cut(hash, h, token, known, v)
  local count = tonumber(v[1])
  if not count then
    return nil
  end
  if known < 0 then
    if not listed(v[2], token) then
      return nil
    end
    if count > 1 then
      redis.call('hset', hash, h, count - 1, ':a:' .. h, acquires_undone(v[2], token))
      return 'cut'
    end
  elseif known > 0 and v[3] == token then
    if count > known then
      redis.call('hset', hash, h, known)
      return 'cut'
    end
    return nil
  end
  hold_drop(hash, h)
  return 'drop'
end

-- hold_undo cuts hold h back to what a caller knows it holds (token and
-- count; 0 and 0 for nothing) after the acquire with attempt id, whose
-- reply was lost. A caller that shares its owner id with others knows
-- nothing of the hold: it passes count -1 and, for token, the attempt id
-- again, and the acquire is undone once, as long as the hold lists it
-- (see Acquires), whatever other acquires came after it. When the hold
-- does not list the acquire, the acquire is marked undone (see undone),
-- released being the prefix of the marks: it may not have come yet. It
-- returns 'cut' when the count was set back, 'drop' when h was a hold the
-- caller does not know of and its fields were dropped (the caller frees or
-- settles the hash and wakes waiters), or nil when there was nothing to
-- do.
local function hold_undo(hash, h, token, known, released, id)
  local v = redis.call('hmget', hash, h, ':a:' .. h, ':t:' .. h)
  local done = hold_cut(hash, h, token, known, v)
  if id ~= '' and not acquired(v[2], id) then
    undo_mark(released, id)
  end
  return done
end

-- hold_live reports whether hold h is there with token.
local function hold_live(hash, h, token)
  return redis.call('hget', hash, ':t:' .. h) == token and redis.call('hexists', hash, h) == 1
end

-- only_kind reports whether the hash holds nothing but its kind marker.
local function only_kind(hash)
  return redis.call('hlen', hash) <= 1
end

-- Waking one process per release. A lock's waiting processes (each a
-- lockkit Client, named by its notifier's id p) register in the sorted set
-- PREFIX:{NAME}:procs, member p, score the server µs when it registered,
-- and sleep on their own channel CHANNEL:p. A release wakes the process
-- registered first that still listens; the others send nothing and stay
-- asleep. A process that is gone, or no longer waits, is found out when a
-- release picks it (see wake_next), so a registration needs no expiry of
-- its own; the set's TTL outlasts the blocker's lease by wait_slack.

-- wait_slack is how long past the blocker's lease the registrations last:
-- a waiting process attempts again by then if no release woke it.
local wait_slack = 2000

-- wait_register registers process p as waiting while the holder's lease
-- has pttl ms left: where it stands in line if it is in it already, else
-- (or with back) at the back.
local function wait_register(waiting, p, pttl, back)
  local t = server_time()
  local us = t[1] .. string.format('%06d', tonumber(t[2]))
  if back then
    redis.call('zadd', waiting, us, p)
  else
    redis.call('zadd', waiting, 'NX', us, p)
  end
  local ttl = math.max(pttl, 0) + wait_slack
  if redis.call('pttl', waiting) < ttl then
    redis.call('pexpire', waiting, ttl)
  end
end

-- handoff_ms is how long a lock freed for a woken process is kept for it
-- (see wake_next): long enough for its attempt to arrive, short enough that
-- a process that never takes its turn holds up the others little.
local handoff_ms = 100

-- standby_told is how many processes next in line a release tells when
-- to try (see standby).
local standby_told = 3

-- standby tells the processes next in line, standby_told of them at the
-- most, that the free lock is kept for another for handoff_ms: the first
-- tries again then unless woken first (notify.Standby), the second
-- handoff_ms later, and so on, so that a woken process that never takes
-- its turn (it stopped, or was cut off while its connection stays open
-- here, so that the publish counted it) holds up the others no longer
-- than that, and so does each of the next ones that does not come either.
-- A process in line that no longer listens is taken out of it, and the
-- next one told, as wake_next does.
local function standby(waiting, prefix)
  local told = 0
  while told < standby_told do
    local p = redis.call('zrange', waiting, told, told)[1]
    if not p then
      return
    end
    if publish(prefix .. p, 's' .. handoff_ms * (told + 1)) > 0 then
      told = told + 1
    else
      redis.call('zrem', waiting, p)
    end
  end
end

-- wake_next wakes one waiting process: it publishes '1' on the own channel
-- (prefix .. p) of the process registered first, skipping processes no
-- longer listening (the publish reached nobody: the process is gone, or
-- stopped waiting), and keeps the free lock for it for handoff_ms: its
-- id is stored in turn (unless turn is nil), and other processes' acquires
-- are refused meanwhile, so that a process that releases and locks again
-- at once does not take the lock from the one it woke; the process next
-- in line is told (see standby). It returns the woken process, or nil.
--
-- Where a publish cannot tell whether a process listens (see counted), it
-- wakes every registered process instead, keeps their registrations and
-- the lock for nobody, and returns true.
local function wake_next(waiting, turn, prefix)
  if redis.call('exists', waiting) == 0 then
    return nil
  end
  if not counted(prefix) then
    for _, p in ipairs(redis.call('zrange', waiting, 0, -1)) do
      publish(prefix .. p, '1')
    end
    return true
  end
  while true do
    local p = redis.call('zpopmin', waiting)[1]
    if not p then
      return nil
    end
    if publish(prefix .. p, '1') > 0 then
      if turn then
        redis.call('set', turn, p, 'PX', handoff_ms)
        standby(waiting, prefix)
      end
      return p
    end
  end
end

-- pass_on passes on a wake-up that a process was given but had no waiter
-- left to use: it wakes the next waiting process (see wake_next), which
-- the free lock is kept for when turn is not nil; when there is none, the
-- lock is kept for nobody any more. It returns 1 when a process was woken,
-- 0 when none was.
local function pass_on(waiting, turn, prefix)
  if wake_next(waiting, turn, prefix) then
    return 1
  end
  if turn then
    redis.call('del', turn)
  end
  return 0
end

-- kept_for settles, for an acquire of a free lock by process proc, the
-- turn a release left (see wake_next): it returns how long to refuse the
-- caller, the time the lock is still kept, while it is kept for another
-- process (the caller tries again then: if the woken process never takes
-- its turn, it holds the caller up no longer than that); nil when the
-- caller may take it: nobody's turn, or its own, which then ends.
local function kept_for(turn, proc)
  local p = redis.call('get', turn)
  if not p then
    return nil
  end
  if p ~= proc then
    return math.max(redis.call('pttl', turn), 1)
  end
  redis.call('del', turn)
  return nil
end

-- kept_wait returns how long process p, refused because the free lock is
-- kept for another process for wait ms more (see kept_for), sleeps before
-- it tries again unless woken, p being registered in waiting or about to
-- be (at the back). The first in line gets wait: if the woken process
-- never takes its turn, it takes the lock then. Each process behind gets
-- handoff_ms more for every process ahead of it, whom the releases wake
-- first, so that the processes in line do not all try again when the keep
-- ends while the turns go on as they should.
local function kept_wait(waiting, p, wait)
  local ahead = redis.call('zrank', waiting, p) or redis.call('zcard', waiting)
  return wait + ahead * handoff_ms
end

-- The waiters of an acquire's caller. An acquire that may wake the
-- caller's process on its own channel is told the process's id, proc (''
-- for none), and its waiters in that process, waiters: '0' when the caller
-- has not joined them, '1' when it is the only one, '2' when others wait
-- behind it, 'n' when it will not wait (a TryLock).

-- wait_refused registers process proc in waiting after a refused acquire
-- whose caller waits wait ms unless woken, and returns the wait to reply:
-- while the free lock is kept for another process (kept), lengthened by
-- its place in line (see kept_wait). A caller that will not wait
-- registers nothing and gets wait as it is.
local function wait_refused(waiting, proc, waiters, wait, kept)
  if proc ~= '' and waiters ~= 'n' then
    if kept then
      wait = kept_wait(waiting, proc, wait)
    end
    wait_register(waiting, proc, wait)
  end
  return wait
end

-- wait_took ends or keeps the registration in waiting of process proc,
-- whose caller took the lock with a lease of lease ms: it ends when the
-- caller was its only waiter, and goes to the back of the line when others
-- wait behind it.
local function wait_took(waiting, proc, waiters, lease)
  if proc == '' then
    return
  end
  if waiters == '1' then
    redis.call('zrem', waiting, proc)
  elseif waiters == '2' then
    wait_register(waiting, proc, lease, true)
  end
end

-- wake wakes the waiters of a lock just freed that publishes on channel
-- (empty: none): one waiting process (see wake_next); when none is
-- registered, one waiter per process sleeping on channel itself (a Cluster
-- client's waiters do).
local function wake(waiting, turn, channel)
  if channel ~= '' and not wake_next(waiting, turn, channel .. ':') then
    publish(channel, '1')
  end
end

-- wake_all wakes every waiter of every registered process, and those on
-- channel itself ('*'), and empties the registrations and the turn (if
-- not nil).
local function wake_all(waiting, turn, channel)
  if channel == '' then
    return
  end
  for _, p in ipairs(redis.call('zrange', waiting, 0, -1)) do
    publish(channel .. ':' .. p, '*')
  end
  redis.call('del', waiting)
  if turn then
    redis.call('del', turn)
  end
  publish(channel, '*')
end

-- vacate publishes '*' on channel unless it is nil or empty: the word,
-- sent by the script that freed a lock, to those who follow who holds it
-- (an election's observers) that nobody does now.
local function vacate(channel)
  if channel and channel ~= '' then
    publish(channel, '*')
  end
end

-- Kind script follows.
