-- holder.lua: the election's shared definitions, loaded after the prelude
-- and before each of its scripts.
--
-- An election is a hash lock (internal/lua's mutex scripts, kind
-- 'election'): one hold, the leader's, whose token is the term. Its
-- leader proclaims its value in the hash beside the hold, in the field
-- ':v:' .. h, so that the value lives, is renewed and ends with the hold.

-- holder returns the id of the hold in the election's hash, or nil when
-- nobody leads. Hold ids are the fields that do not start with ':'. When
-- another kind than kind holds the name, it returns nil and the WRONGKIND
-- error to reply with.
local function holder(hash, kind)
  local bad = wrong_kind(hash, kind)
  if bad then
    return nil, bad
  end
  local fields = redis.call('hkeys', hash)
  for _, f in ipairs(fields) do
    if string.sub(f, 1, 1) ~= ':' then
      return f
    end
  end
  return nil
end
