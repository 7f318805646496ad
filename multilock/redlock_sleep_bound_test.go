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
// waiting Lock whose backoff sleeps an hour between refused rounds takes
// the lock once that lease has ended, within its ctx of 30 s: its sleep is
// cut at the lease the nodes reported.
func TestRedLock_Lock_sleeps_never_past_the_blocking_holder_s_lease(t *testing.T) {
	const lease = 300 * time.Millisecond
	_, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	blocker := multilock.NewRedLock(lcs, name, lockkit.WithLease(lease))
	waiter := multilock.NewRedLock(lcs, name)
	multilock.SetBackoff(waiter, time.Hour, time.Hour)
	// The lease begins on each node after Lock is called: it ends no sooner
	// than a lease from then (Lock's return is later, by its round trips).
	end := time.Now().Add(lease)
	redistest.MustLock(t, blocker)
	if err := waiter.Lock(redistest.Ctx(t, 30*time.Second)); err != nil {
		t.Fatalf("Lock behind a lease of %v with a backoff of an hour = %v; want the lock once the lease ended", lease, err)
	}
	if time.Now().Before(end) {
		t.Error("Lock took the lock before the blocking holder's lease ended")
	}
	redistest.MustUnlock(t, waiter)
	// The waiter needed a majority only: on a node whose part of the
	// blocker's hold it found a moment from its end, that part ends with
	// its lease, never unlocked.
	for _, c := range clients {
		redistest.AssertCleanWithin(t, c, name, lease)
	}
}
