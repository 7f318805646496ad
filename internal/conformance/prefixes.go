package conformance

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// oddPrefixes are key prefixes that WithPrefix accepts, some a prefix of
// another, with ':', a space, a newline, unicode and bytes that are not
// UTF-8.
var oddPrefixes = []string{"p", "p:", ":p", "p:p", "p p", "p\n", "ü", "\xff", "%7B", "*"}

// testPrefixes checks that one name under different prefixes is as many
// independent locks: it is held under every prefix at once, by a lock
// option and by a Client's default, and under each another owner with
// the same prefix is kept out until its release.
func testPrefixes(t *testing.T, e *env) {
	name := redistest.Unique(t)
	type owners struct{ holder, other lockkit.Locker }
	var locks []owners
	for _, p := range oddPrefixes {
		locks = append(locks, owners{e.lock(name, lockkit.WithPrefix(p)), e.lock(name, lockkit.WithPrefix(p))})
	}
	// Two Clients whose default prefixes differ, on the same name.
	for _, p := range []string{"client-a", "client-b"} {
		c := redistest.Lockkit(t, e.rc, lockkit.WithPrefix(p))
		locks = append(locks, owners{e.k.New(c, name), e.k.New(c, name)})
	}
	locks = append(locks, owners{e.lock(name), e.lock(name)}) // the default prefix
	for _, l := range locks {
		redistest.MustLock(t, l.holder)
	}
	for i, l := range locks {
		if ok, err := l.other.TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("lock %d: TryLock by another owner of the same prefix = %v, %v; want false", i, ok, err)
		}
		redistest.MustUnlock(t, l.holder)
		redistest.MustLock(t, l.other)
		redistest.MustUnlock(t, l.other)
	}
}
