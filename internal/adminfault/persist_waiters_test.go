package adminfault_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestRestoredWaiters_still_waiting_are_woken_by_the_release
// restarts the server from data saved while a holder holds and waiters of
// both sides wait, and nothing changed since: the hold and the waiters'
// registrations come back. The holder keeps its hold over a renewal; its
// Unlock wakes the waiters, who take the lock one at a time, each within
// wakeBound of the one before, well before the lease their sleep is
// bounded by.
func TestRestoredWaiters_still_waiting_are_woken_by_the_release(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		holder := e.Owner(e.A, 0)
		faultkit.MustLock(t, holder)
		ctx := redistest.Ctx(t, redistest.Hang)
		w1, w2 := e.WaitBeside(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)
		if !e.K.Polls {
			e.WaitersSubscribed(t) // the connections the restart breaks
		}
		before := e.B.Reconnects.Load()
		e.restore(t, e.snapshot(t))
		renewed(t, e.A, 1)
		if redistest.AnyClosed(holder.Lost()) {
			t.Fatalf("the holder was told its hold is lost, though the restart brought it back")
		}
		if !e.K.Polls {
			redistest.Eventually(t, callBound, "the waiting Client to subscribe again", func() bool {
				return e.B.Reconnects.Load() > before
			})
		}
		faultkit.MustUnlock(t, holder)
		serve(t, wakeBound, w1, w2)
		e.Clean(t, e.Name)
	})
}
