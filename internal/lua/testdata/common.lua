-- common.lua: a kind's shared definitions, for TestLoad.
local HASH, LEASES = KEYS[1], KEYS[2]
local UNUSED_A, UNUSED_B = ARGV[9], ARGV[10]
local NOW = now_ms()

-- lease_of reads a hold's lease.
local function lease_of(h)
  return redis.call('zscore', LEASES, h)
end

-- never_called is named by no operation.
local function never_called()
  return redis.call('del', HASH)
end
