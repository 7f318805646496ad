package core

import (
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/notify"
)

// Keys names the Redis keys and channels of one lock. Every name carries
// the same {NAME} hash tag, so all of them live in one Cluster slot and a
// script may touch any of them.
type Keys struct {
	// Base is PREFIX:{NAME}, the lock's hash; the other names extend it.
	Base string
	// Fence is the fencing-token counter (no TTL: tokens keep increasing).
	Fence string
	// Released is the prefix of the keys that remember recently released
	// tokens for retried releases: Released:TOKEN, each with a TTL.
	Released string
	// Channel carries release messages for the lock's waiters; a process
	// that registers in Procs is woken on Channel:ID instead, ID being its
	// notifier's.
	Channel string
	// Procs registers the processes waiting for the lock, so that a
	// release wakes one of them, and Turn names the one a free lock is
	// kept for a moment (see internal/lua's prelude).
	Procs, Turn string
	mark        string // begins every channel: notify.ShardMark or ""
}

// tagEscaper keeps a name from ending or nesting the hash tag: a '}' in
// the name would otherwise cut the tag short (an empty tag spreads the
// keys over slots), so '%', '{' and '}' are percent-encoded. Distinct names
// still get distinct keys.
var tagEscaper = strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D")

// NewKeys returns the keys of lock name under prefix. With sharded, its
// channels are shard channels (see Sharded).
func NewKeys(prefix, name string, sharded bool) Keys {
	base := prefix + ":{" + tagEscaper.Replace(name) + "}"
	k := Keys{
		Base:     base,
		Fence:    base + ":fence",
		Released: base + ":released",
		Procs:    base + ":procs",
		Turn:     base + ":turn",
	}
	if sharded {
		k.mark = notify.ShardMark
	}
	k.Channel = k.Chan("ch")
	return k
}

// Sub returns the key BASE:part, in the lock's slot.
func (k Keys) Sub(part string) string { return k.Base + ":" + part }

// Chan returns the channel BASE:part, in the lock's slot: a shard channel
// where the keys are sharded.
func (k Keys) Chan(part string) string { return k.mark + k.Sub(part) }

// Sharded reports whether the channels of locks on rc are shard channels
// (see notify.ShardMark): on a Cluster client, where a classic PUBLISH is
// relayed to every node of the Cluster, a shard channel's reaches the
// lock's shard alone (Redis 7; an older server falls back to PUBLISH).
func Sharded(rc redis.UniversalClient) bool {
	_, ok := rc.(*redis.ClusterClient)
	return ok
}

// KeysFor returns the keys of lock name made from client c under the
// default prefix.
func KeysFor(c *lockkit.Client, name string) Keys {
	return NewKeys(lockkit.DefaultPrefix, name, Sharded(c.Redis()))
}
