package rwlock_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestClose_releases_free_a_reentered_hold checks, for each side, Close's
// promise that the releases still free what was held when the hold was
// re-entered: after Close, as many releases as acquires (each reporting
// ErrClosed) leave nothing of the hold in Redis, so that another Client's
// owner gets the lock at once, not when the hold's lease (30 s) ends.
func TestClose_releases_free_a_reentered_hold(t *testing.T) {
	srv := redistest.StartServer(t)
	forEachSide(t, "read hold", "write hold", func(t *testing.T, write bool, _ string) {
		lc, name := redistest.Lockkit(t, srv.Client(t)), redistest.Unique(t)
		m := rwlock.New(lc, name)
		lock, release := side(m, write)
		must(t, m, "lock", lock)
		must(t, m, "re-enter", lock)
		if err := lc.Close(); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			redistest.WantErr(t, release(context.Background()), lockkit.ErrClosed)
		}
		other := rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)
		if s := state(t, other); s.Mode != rwlock.Unlocked {
			t.Fatalf("state after the releases = %+v; want the lock free", s)
		}
		if !tryLock(t, other) {
			t.Fatal("another owner was refused the lock after the releases")
		}
		redistest.MustUnlock(t, other)
		redistest.AssertClean(t, srv.Client(t), name)
	})
}
