package adminfault_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestRestoredQueue_a_waiter_that_took_the_lock_since_is_told_and_its_entry_holds_up_nobody_past_its_deadline
// saves the data while a holder holds and a waiter of the other side
// waits (registered, and for a fair lock queued), has the holder unlock
// and the waiter take the lock, then restarts the server from the saved
// data: the old hold is back, a ghost, and so is the waiter's
// registration, though it holds the lock now. The waiter is told its hold
// is lost within a renewal interval and its Unlock returns ErrLost
// (RedLock keeps it on its majority, when the waiter holds it on both
// other nodes: its round may have overlapped the holder's release and
// taken two nodes of three, the restored among them); owners of both sides, the old
// holder among them, then take the lock one at a time, the first within
// the ghost's lease and the waiter timeout, with tokens larger than the
// waiter's.
func TestRestoredQueue_a_waiter_that_took_the_lock_since_is_told_and_its_entry_holds_up_nobody_past_its_deadline(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		holder := e.Owner(e.A, 0)
		faultkit.MustLock(t, holder)
		ctx := redistest.Ctx(t, redistest.Hang)
		w := e.Wait(t, ctx, e.B, 1)
		snap := e.snapshot(t)
		faultkit.MustUnlock(t, holder)
		if err := redistest.Receive(t, w.Done, callBound, "the waiter to take the lock"); err != nil {
			t.Fatalf("Lock of the waiter = %v", err)
		}
		old := w.Tokens()
		kept := e.heldBeyondFirst(t)

		e.restore(t, snap)
		e.restoredHold(t, w.Owner, e.B, "the waiter", e.restoredAlone() || kept < e.K.Servers/2+1)
		serveAfter(t, e.waiterBound()+lostSlack, old, lockAgain(ctx, holder), lockAgain(ctx, e.Owner(e.A, 2)), lockAgain(ctx, e.Owner(e.B, 3)))
		e.Clean(t, e.Name)
	})
}

// heldBeyondFirst returns on how many of e's servers but the first, the
// one restore restarts, the hash of e's lock exists: for a test whose
// owners all released but one, on how many the one holds it.
func (e *env) heldBeyondFirst(t *testing.T) int {
	t.Helper()
	n := 0
	for _, c := range e.Admins[1:] {
		got, err := c.Exists(redistest.Ctx(t, callBound), core.NewKeys(lockkit.DefaultPrefix, e.Name, false).Base).Result()
		if err != nil {
			t.Fatalf("EXISTS on %s: %v", c.Options().Addr, err)
		}
		n += int(got)
	}
	return n
}
