package adminfault_test

import (
	"testing"

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
		holder := e.owner(e.a, 0)
		mustLock(t, holder)
		ctx := redistest.Ctx(t, redistest.Hang)
		w1, w2 := e.wait(t, ctx, e.a, 1), e.wait(t, ctx, e.b, 2)
		before := e.b.reconnects.Load()
		e.restore(t, e.snapshot(t))
		renewed(t, e.a, 1)
		if redistest.AnyClosed(holder.lost()) {
			t.Fatalf("the holder was told its hold is lost, though the restart brought it back")
		}
		if !e.k.polls {
			redistest.Eventually(t, callBound, "the waiting Client to subscribe again", func() bool {
				return e.b.reconnects.Load() > before
			})
		}
		mustUnlock(t, holder)
		serve(t, wakeBound, w1, w2)
		e.clean(t, e.name)
	})
}
