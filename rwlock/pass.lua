-- pass.lua: pass on a wake-up that a process's writers were given but
-- none is left to use (they all gave up): wake the writers of the next
-- waiting process, and keep the lock for them if it is free; with none,
-- the free lock is no longer kept for anyone. A woken writer that finds
-- the lock busy registers again.
--
-- KEYS     the seven keys of the lock, in the order of common.lua
-- ARGV[1]  writers' channel PREFIX:{NAME}:wch
--
-- Returns 1 when a process was woken, 0 when none was.
local free = redis.call('exists', HASH) == 0
return pass_on(WPROCS, free and TURN or nil, ARGV[1] .. ':')
