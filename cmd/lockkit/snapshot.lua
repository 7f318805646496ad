-- snapshot.lua: read everything lockkit keeps about one lock, of any kind,
-- at one instant of the server's clock. It writes nothing: it runs as
-- EVAL_RO, so the server refuses any write.
--
-- KEYS[1]  lock hash PREFIX:{NAME} (the prelude's hold layout)
-- KEYS[2]  fencing-token counter PREFIX:{NAME}:fence
-- KEYS[3]  fair queue PREFIX:{NAME}:waiters (score = arrival number)
-- KEYS[4]  fair deadlines PREFIX:{NAME}:timeouts (score = server ms)
-- KEYS[5]  read-write leases PREFIX:{NAME}:leases (score = server ms)
-- KEYS[6]  read-write intents PREFIX:{NAME}:writers (score = server ms)
-- KEYS[7]  waiting processes PREFIX:{NAME}:procs (score = server µs when
--          the process registered); for a read-write lock, its writers'
--          PREFIX:{NAME}:wprocs is read instead (see below)
-- ARGV     none (see snapshot.go)
--
-- Returns {now, fields, hash_pttl, fence, queue, deadlines, timeouts,
-- leases, writers, procs}:
--   now        server time in ms (TIME)
--   fields     HGETALL of the hash: field, value, field, value, ...
--   hash_pttl  PTTL of the hash: -2 when it does not exist, -1 without TTL
--   fence      the last token minted, or nil when none ever was
--   queue, timeouts, leases, writers, procs
--              {card, pttl, member, score, member, score, ...}: the set's
--              size, its PTTL and its first entries (at most limit)
--   deadlines  the score in KEYS[4] of each member of queue, in the same
--              order; nil for a member without one
-- limit is how many entries of each sorted set are returned at most.
local limit = 1000

local function zset(key)
  local out = {redis.call('zcard', key), redis.call('pttl', key)}
  local entries = redis.call('zrange', key, 0, limit - 1, 'withscores')
  for i = 1, #entries do
    out[#out + 1] = entries[i]
  end
  return out
end

local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local queue = zset(KEYS[3])
local deadlines = {}
for i = 3, #queue, 2 do
  deadlines[#deadlines + 1] = redis.call('zscore', KEYS[4], queue[i]) or false
end

-- A read-write lock's waiting writers register their processes in
-- PREFIX:{NAME}:wprocs rather than KEYS[7]. It is read by name, in the
-- slot of KEYS[1]: the request has no room for an eighth key (see
-- snapshot.go).
local procs = KEYS[7]
if redis.call('hget', KEYS[1], ':kind') == 'rwlock' then
  procs = KEYS[1] .. ':wprocs'
end

return {now, redis.call('hgetall', KEYS[1]), redis.call('pttl', KEYS[1]),
  redis.call('get', KEYS[2]), queue, deadlines, zset(KEYS[4]), zset(KEYS[5]),
  zset(KEYS[6]), zset(procs)}
