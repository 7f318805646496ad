package pausefault_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// pastLease is the watchdog timeout of the test of a holder stopped past
// its lease.
const pastLease = time.Second

// lostBound bounds how long after it resumes a holder stopped past its
// lease is told its hold is lost: its watchdog's local deadline has
// passed, so no round trip is needed.
const lostBound = 300 * time.Millisecond

// TestHolderStopped_past_its_lease_is_told_lost_once_resumed_and_its_Unlock_leaves_the_new_hold
// stops a holder process until a waiter of another process has taken the
// lock once the lease ended: the waiter's tokens are larger; once resumed,
// the stopped holder is told its hold is lost within lostBound, because
// its lease was not renewed in time (not by a renewal that found it gone);
// its Unlock returns ErrLost and leaves the new holder's hold be; nothing
// is left at the end.
func TestHolderStopped_past_its_lease_is_told_lost_once_resumed_and_its_Unlock_leaves_the_new_hold(t *testing.T) {
	forEachKind(t, pastLease, func(t *testing.T, e *env) {
		c := e.StartOwner(t, 0)
		old := faultkit.ChildLock(t, c)
		w := e.wait(t, e.A, 1)

		c.Stop(t)
		taken(t, w, e.Lease+slack, "the waiter, once the stopped holder's lease ended")
		for p, tok := range w.Tokens() {
			if tok <= old[p] {
				t.Errorf("new holder's token %d of part %d is not larger than the stopped holder's %d", tok, p, old[p])
			}
		}

		c.Continue(t)
		resumed := time.Now()
		line := c.WaitLine(t, "lost ", callBound)
		took := time.Since(resumed)
		t.Logf("told lost %v after it resumed", took)
		if took > lostBound {
			t.Errorf("the stopped holder was told its hold was lost %v after it resumed, want within %v", took, lostBound)
		}
		if !strings.Contains(line, watchdog.ErrNotRenewed.Error()) {
			t.Errorf("the stopped holder's hold was lost with %q, want %v (before any renewal)", line, watchdog.ErrNotRenewed)
		}
		faultkit.ChildUnlock(t, c, "ErrLost")
		if redistest.AnyClosed(w.Lost()) {
			t.Error("the new holder's hold was lost after the stopped holder's Unlock")
		}
		e.wantHeld(t, "after the stopped holder's Unlock")
		faultkit.MustUnlock(t, w.Owner)
		faultkit.EndChild(t, c)
		e.Clean(t, e.Name)
	})
}
