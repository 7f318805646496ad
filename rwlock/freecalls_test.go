package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestUnlock_that_frees_the_lock_deletes_its_keys_in_one_call: the release
// that ends the only hold of a lock deletes the hash and the lease set in
// one DEL, and a write release the writers' intents with them, without
// first dropping the lapsed intents of a set that goes anyway. Nothing of
// the lock is left but what outlives a hold (its fencing counter and the
// released token).
func TestUnlock_that_frees_the_lock_deletes_its_keys_in_one_call(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	for _, side := range []struct {
		name   string
		locker func(*rwlock.RWMutex) redistest.NamedLocker
		drops  int64 // ZREMRANGEBYSCORE calls of the release
	}{
		{"write", func(m *rwlock.RWMutex) redistest.NamedLocker { return m }, 0},
		{"read", func(m *rwlock.RWMutex) redistest.NamedLocker { return m.RLocker().(redistest.NamedLocker) }, 1},
	} {
		t.Run(side.name, func(t *testing.T) {
			name := redistest.Unique(t)
			l := side.locker(rwlock.New(lc, name))
			redistest.MustLock(t, l)
			before := redistest.CommandCalls(t, c)
			redistest.MustUnlock(t, l)
			after := redistest.CommandCalls(t, c)
			if n := after["del"] - before["del"]; n != 1 {
				t.Errorf("the release that freed the lock made %d DEL calls, want 1", n)
			}
			if n := after["zremrangebyscore"] - before["zremrangebyscore"]; n != side.drops {
				t.Errorf("the release that freed the lock made %d ZREMRANGEBYSCORE calls, want %d", n, side.drops)
			}
			redistest.AssertClean(t, c, name)
		})
	}
}
