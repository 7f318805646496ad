-- publish.lua: publish a message on a lock's channel, as the scripts do
-- (see the prelude's Channels: a shard channel goes out with SPUBLISH).
--
-- KEYS[1]  the lock's hash PREFIX:{NAME}: names the slot; not read
-- ARGV[1]  the channel, in that slot
-- ARGV[2]  the message
--
-- Returns how many subscribers received it.
return publish(ARGV[1], ARGV[2])
