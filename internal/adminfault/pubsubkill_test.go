package adminfault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// pubsubKills is how many times the pub/sub connections are killed while
// the waiters wait.
const pubsubKills = 5

// wakeBound bounds the time from a release to the waiter it wakes holding
// the lock: far less than the test's lease, which bounds a waiter's sleep
// when no wake-up reaches it.
const wakeBound = time.Second

// TestPubsubKilled_repeatedly_the_waiters_are_still_woken_by_the_release
// kills every pub/sub connection of the server (CLIENT KILL TYPE pubsub)
// five times while a lock with a 20 s lease is held and waiters of the
// holder's Client, of another and of a child process wait, each time once
// the waiters have subscribed again: the holder keeps its hold, and once
// it unlocks, the waiters take the lock one after the other, each within
// a second of the release before, not at the end of a lease.
func TestPubsubKilled_repeatedly_the_waiters_are_still_woken_by_the_release(t *testing.T) {
	forEachKindLease(t, 20*time.Second, func(t *testing.T, e *env) {
		holder := e.Owner(e.A, 0)
		faultkit.MustLock(t, holder)
		ctx := redistest.Ctx(t, redistest.Hang)
		w1, w2 := e.WaitBeside(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)
		child := e.StartWaiter(t, 3)

		for range pubsubKills {
			e.subscribed(t)
			before := e.B.Reconnects.Load()
			e.Admin(t, "client", "kill", "type", "pubsub")
			if !e.K.Polls {
				redistest.Eventually(t, callBound, "the waiting Client to reconnect", func() bool {
					return e.B.Reconnects.Load() > before
				})
			}
		}
		e.subscribed(t)
		if redistest.AnyClosed(holder.Lost()) {
			t.Fatal("hold reported lost after the pub/sub connections were killed")
		}
		faultkit.MustUnlock(t, holder)
		serve(t, wakeBound, w1, w2)
		child.WaitLine(t, "unlocked", 2*wakeBound)
		e.Clean(t, e.Name)
	})
}

// subscribed waits until the server of e has two pub/sub connections
// subscribed to a channel (those of the waiters of the other Client and of
// the child process; the holder's Client's waiter waits in memory in
// cohort mode), unless e's kind waits without pub/sub.
func (e *env) subscribed(t *testing.T) {
	t.Helper()
	if e.K.Polls {
		return
	}
	e.Subscribed(t, 2)
}
