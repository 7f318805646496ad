package rwlock_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit/rwlock"
)

// side returns the acquire and the release of m's write side when write,
// and of its read side otherwise.
func side(m *rwlock.RWMutex, write bool) (acquire, release func(context.Context) error) {
	if write {
		return m.Lock, m.Unlock
	}
	return m.RLock, m.RUnlock
}

// forEachSide runs test as a subtest for the read side, named read, and
// then for the write side, named write; test gets the side and its name.
func forEachSide(t *testing.T, read, write string, test func(t *testing.T, write bool, what string)) {
	t.Helper()
	for _, w := range []bool{false, true} {
		what := read
		if w {
			what = write
		}
		t.Run(what, func(t *testing.T) { test(t, w, what) })
	}
}
