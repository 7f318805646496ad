package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Lock_sleeps_never_past_the_blocking_holder_s_lease: another
// owner holds the lock with a fixed lease of 300 ms and never unlocks. A
// waiting Lock, whose backoff has grown to its cap (128 ms) by then, takes
// the lock within a few milliseconds of that lease's end, not up to a
// whole backoff later: its sleep is cut at the lease the nodes reported.
// Three times, as a sleep that ignored the lease would end close enough
// now and then.
func TestRedLock_Lock_sleeps_never_past_the_blocking_holder_s_lease(t *testing.T) {
	const (
		lease = 300 * time.Millisecond
		late  = 50 * time.Millisecond // the most a loaded machine adds
	)
	_, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	for range 3 {
		name := redistest.Unique(t)
		blocker := multilock.NewRedLock(lcs, name, lockkit.WithLease(lease))
		waiter := multilock.NewRedLock(lcs, name)
		redistest.MustLock(t, blocker)
		// The lease began on the nodes before Lock returned: it ends by then.
		end := time.Now().Add(lease)
		redistest.MustLock(t, waiter)
		if over := time.Since(end); over > late {
			t.Errorf("Lock took the lock %v after the blocking holder's lease ended; want at most %v", over, late)
		}
		redistest.MustUnlock(t, waiter)
		assertCleanAll(t, clients, name)
	}
}
