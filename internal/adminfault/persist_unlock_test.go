package adminfault_test

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestRestoredHold_an_Unlock_in_doubt_retried_after_the_restart_returns_nil
// saves the data while a hold is held, has the holder's Unlock run with
// its reply lost (an error: the outcome is in doubt), and restarts the
// server from the saved data, which brings the hold back. The retried
// Unlock returns nil (the hold ended by a release: the first, or the
// retry, when the restart came before the holder's Client settled it in
// the background; for a multi-lock, ErrNotHeld for the members released
// already, without a loss), and owners of both sides then take the lock within the
// restored hold's lease, with larger tokens. For the kinds of one server.
func TestRestoredHold_an_Unlock_in_doubt_retried_after_the_restart_returns_nil(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		if !e.restoredAlone() {
			t.Skip("an Unlock of several nodes, of which one is restored")
		}
		drop := &redistest.DropReply{Match: redistest.IsScript}
		e.A.RCs[0].AddHook(drop)
		holder := e.Owner(e.A, 0)
		faultkit.MustLock(t, holder)
		old := holder.Tokens()
		snap := e.snapshot(t)
		drop.Arm()
		if err := holder.Unlock(redistest.Ctx(t, callBound)); err == nil {
			t.Fatal("Unlock whose reply was lost = nil, want an error")
		}
		e.restore(t, snap)
		err := holder.Unlock(redistest.Ctx(t, callBound))
		if e.K.Name == "multilock" && errors.Is(err, lockkit.ErrNotHeld) && !errors.Is(err, lockkit.ErrLost) {
			err = nil // the members released already report ErrNotHeld (see multilock)
		}
		if err != nil {
			t.Errorf("Unlock retried after the restart = %v, want nil", err)
		}
		ctx := redistest.Ctx(t, redistest.Hang)
		serveAfter(t, e.Lease+lostSlack, old, lockAgain(ctx, e.Owner(e.A, 1)), lockAgain(ctx, e.Owner(e.B, 2)))
		e.Clean(t, e.Name)
	})
}
