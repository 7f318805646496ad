-- pass.lua: pass on a wake-up that a process's writers were given but
-- none is left to use (they all gave up): wake the writers of the next
-- waiting process. A woken writer that finds the lock busy registers again.
--
-- KEYS     the six keys of the lock, in the order of common.lua
-- ARGV[1]  writers' channel PREFIX:{NAME}:wch
--
-- Returns 1 when a process was woken, 0 when none was.
if wake_next(WPROCS, nil, ARGV[1] .. ':') then
  return 1
end
return 0
