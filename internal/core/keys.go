package core

import "strings"

// Keys names the Redis keys and channels of one lock. Every name carries
// the same {NAME} hash tag, so all of them live in one Cluster slot and a
// script may touch any of them.
type Keys struct {
	// Base is PREFIX:{NAME}, the lock's hash; the other names extend it.
	Base string
	// Fence is the fencing-token counter (no TTL: tokens keep increasing).
	Fence string
	// Released remembers recently released tokens for retried releases.
	Released string
	// Channel carries release messages for the lock's waiters; a process
	// that registers in Procs is woken on Channel:ID instead, ID being its
	// notifier's.
	Channel string
	// Procs registers the processes waiting for the lock, so that a
	// release wakes one of them, and Turn names the one a free lock is
	// kept for a moment (see internal/lua's prelude).
	Procs, Turn string
}

// tagEscaper keeps a name from ending or nesting the hash tag: a '}' in
// the name would otherwise cut the tag short (an empty tag spreads the
// keys over slots), so '%', '{' and '}' are percent-encoded. Distinct names
// still get distinct keys.
var tagEscaper = strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D")

// NewKeys returns the keys of lock name under prefix.
func NewKeys(prefix, name string) Keys {
	base := prefix + ":{" + tagEscaper.Replace(name) + "}"
	return Keys{
		Base:     base,
		Fence:    base + ":fence",
		Released: base + ":released",
		Channel:  base + ":ch",
		Procs:    base + ":procs",
		Turn:     base + ":turn",
	}
}

// Sub returns the key or channel BASE:part, in the lock's slot.
func (k Keys) Sub(part string) string { return k.Base + ":" + part }
