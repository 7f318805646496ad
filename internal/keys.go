package internal

import "strings"

// DefaultPrefix is the key prefix used unless a lock is given another one.
const DefaultPrefix = "lockkit"

// Keys names the Redis keys and channels of one lock. Every name carries the
// same {NAME} hash tag, so all of them live in one Cluster slot and a script
// may touch any of them.
type Keys struct {
	// Base is PREFIX:{NAME}; the other names extend it.
	Base string
	// Lock is the lock's hash: field = owner id, value = hold count.
	Lock string
	// Channel carries release messages for the lock's waiters.
	Channel string
	// Fence is the fencing-token counter; it has no TTL, as tokens must keep
	// increasing across holds.
	Fence string
	// Released is a sorted set of recently released tokens (score = release
	// time in ms), so that a retried Unlock can tell it already succeeded.
	Released string
}

// NewKeys returns the keys of lock name under prefix.
func NewKeys(prefix, name string) Keys {
	base := prefix + ":{" + name + "}"
	return Keys{
		Base:     base,
		Lock:     base,
		Channel:  base + ":ch",
		Fence:    base + ":fence",
		Released: base + ":released",
	}
}

// Sub returns the key or channel BASE:parts[0]:parts[1]…, in the lock's slot.
func (k Keys) Sub(parts ...string) string {
	return k.Base + ":" + strings.Join(parts, ":")
}
