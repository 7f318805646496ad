package pausefault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
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
		c := e.StartOwner(t, 0)
		faultkit.ChildLock(t, c)
		w := e.wait(t, e.A, 1)

		c.Stop(t)
		stop := time.NewTimer(shortStop)
		select {
		case err := <-w.Done:
			t.Fatalf("the waiter's Lock returned %v while the holder was stopped within its lease", err)
		case <-stop.C:
		}
		c.Continue(t)
		n := faultkit.ChildRenewals(t, c)
		redistest.Eventually(t, callBound, "the resumed holder to renew its lease", func() bool { return faultkit.ChildRenewals(t, c) > n })
		if len(w.Done) > 0 {
			t.Fatalf("the waiter's Lock returned %v while the resumed holder held the lock", <-w.Done)
		}
		faultkit.ChildUnlock(t, c, "nil")
		taken(t, w, callBound, "the waiter, once the resumed holder unlocked")
		faultkit.MustUnlock(t, w.Owner)
		faultkit.EndChild(t, c)
		e.Clean(t, e.Name)
	})
}
