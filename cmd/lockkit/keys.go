package main

import (
	"strings"

	"github.com/lockkit/lockkit/internal/core"
)

// lockKeys names every key and channel a lock of any kind may use. Every
// name carries the lock's {NAME} hash tag (see internal/core's Keys), so
// all of them live in one Cluster slot and one script may read them all.
type lockKeys struct {
	core.Keys
	// Waiters and Timeouts are a fair lock's queue: arrival numbers and
	// deadlines of the waiting owners.
	Waiters, Timeouts string
	// Leases and Writers are a read-write lock's per-hold leases and
	// waiting writers' intents.
	Leases, Writers string
	// WriterChannel wakes a read-write lock's writers; Channel (from
	// core.Keys) wakes a reentrant lock's waiters and a read-write lock's
	// readers.
	WriterChannel string
	// OwnChannels prefixes each fair waiter's own channel:
	// OwnChannels + OWNER.
	OwnChannels string
	// Observers is the channel on which an election's new leaders and
	// resignations are published to its observers.
	Observers string
	// Permits is a semaphore's number of permits set at run time.
	Permits string
}

// keysOf returns the keys of lock name under prefix.
func keysOf(prefix, name string) lockKeys {
	k := core.NewKeys(prefix, name, false)
	return lockKeys{
		Keys:          k,
		Waiters:       k.Sub("waiters"),
		Timeouts:      k.Sub("timeouts"),
		Leases:        k.Sub("leases"),
		Writers:       k.Sub("writers"),
		WriterChannel: k.Sub("wch"),
		OwnChannels:   k.Sub("ch") + ":",
		Observers:     k.Sub("observe"),
		Permits:       k.Sub("permits"),
	}
}

// tagUnescaper undoes the percent-encoding of '%', '{' and '}' that keeps
// a lock name inside its hash tag (internal/core's tagEscaper).
var tagUnescaper = strings.NewReplacer("%25", "%", "%7B", "{", "%7D", "}")

// nameOf returns the name of the lock whose hash is key under prefix, and
// false when key is not a lock hash (another key of a lock, say).
func nameOf(prefix, key string) (string, bool) {
	tag, ok := strings.CutPrefix(key, prefix+":{")
	if !ok {
		return "", false
	}
	tag, ok = strings.CutSuffix(tag, "}")
	if !ok || tag == "" || strings.ContainsAny(tag, "{}") {
		return "", false
	}
	return tagUnescaper.Replace(tag), true
}

// globEscaper escapes the characters special to Redis glob patterns.
var globEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`)

// hashPattern returns the SCAN MATCH pattern of the hashes of the locks
// under prefix whose names may match the glob pattern (every lock when it
// is empty); the names of the hashes found are then matched with
// globMatch. The prefix is matched literally. A key keeps '%', '{' and
// '}' of a name percent-encoded, three bytes where the name has one, so a
// pattern with them, with a class or a '?' that could stand for one of
// them, or with an escape, is left to globMatch: the server matches every
// lock under prefix.
func hashPattern(prefix, pattern string) string {
	if pattern == "" || strings.ContainsAny(pattern, `%{}?[\`) {
		pattern = "*"
	}
	return globEscaper.Replace(prefix) + ":{" + pattern + "}"
}

// globLiteral returns a glob pattern matching s and nothing else.
func globLiteral(s string) string { return globEscaper.Replace(s) }
