package pausefault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// withinLease is the watchdog timeout of the test of a holder stopped for
// less than its lease, and shortStop how long it is stopped: its lease,
// renewed at most a third of it before the stop, outlives the stop by
// more than slack.
const (
	withinLease = 2 * time.Second
	shortStop   = 800 * time.Millisecond
)

// TestHolderStopped_within_its_lease_keeps_the_lock_and_its_Unlock_frees_it
// stops a holder process for shortStop while a waiter of another process
// waits: the waiter does not take the lock during the stop, nor after the
// holder resumed and renewed its lease; the holder's Unlock then returns
// nil and the waiter takes the lock; nothing is left at the end.
func TestHolderStopped_within_its_lease_keeps_the_lock_and_its_Unlock_frees_it(t *testing.T) {
	forEachKind(t, withinLease, func(t *testing.T, e *env) {
		c := e.startOwner(t, 0)
		childLock(t, c)
		w := e.wait(t, e.a, 1)

		c.Stop(t)
		stop := time.NewTimer(shortStop)
		select {
		case err := <-w.done:
			t.Fatalf("the waiter's Lock returned %v while the holder was stopped within its lease", err)
		case <-stop.C:
		}
		c.Continue(t)
		n := childRenewals(t, c)
		redistest.Eventually(t, callBound, "the resumed holder to renew its lease", func() bool { return childRenewals(t, c) > n })
		if len(w.done) > 0 {
			t.Fatalf("the waiter's Lock returned %v while the resumed holder held the lock", <-w.done)
		}
		childUnlock(t, c, "nil")
		taken(t, w, callBound, "the waiter, once the resumed holder unlocked")
		mustUnlock(t, w.owner)
		endChild(t, c)
		e.clean(t)
	})
}
