-- op.lua: an operation of the kind, for TestLoad.
return {lease_of(ARGV[1]), NOW}
