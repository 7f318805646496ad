-- countdown.lua: count a latch down by one, creating it first if needed;
-- the count-down that reaches zero opens it and wakes every waiter.
--
-- KEYS[1]  latch hash PREFIX:{NAME}: ':kind' = 'latch', 'count' = the
--          count left, ':d:' .. id = a count-down already made (until the
--          latch opens)
-- ARGV[1]  the latch's count, used when the hash does not exist
-- ARGV[2]  expiry in ms: the hash lives this long after each count-down
-- ARGV[3]  count-down id, new for every CountDown call: a re-sent script
--          (a client retry after a lost reply) counts once
-- ARGV[4]  channel to publish '*' on when the latch opens
-- ARGV[5]  kind: 'latch'
--
-- Returns the count left after this count-down (0: the latch is open; a
-- latch already open stays at 0). A WRONGKIND error when another kind
-- holds the name.
local hash, initial, expiry, id, channel, kind = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local bad = wrong_kind(hash, kind)
if bad then
  return bad
end
local n = tonumber(redis.call('hget', hash, 'count') or initial)
if n == 0 then
  return 0
end
if redis.call('hexists', hash, ':d:' .. id) == 1 then
  return n
end
n = n - 1
if n == 0 then
  -- Open: keep only the count, for late waiters, until the expiry. The
  -- hash goes first: a server whose memory is full (maxmemory with
  -- noeviction) refuses a command that may take memory only to a script
  -- that has written nothing yet, so the latch still opens then.
  redis.call('del', hash)
  publish(channel, '*')
else
  redis.call('hset', hash, ':d:' .. id, 1)
end
redis.call('hset', hash, ':kind', kind, 'count', n)
redis.call('pexpire', hash, expiry)
return n
