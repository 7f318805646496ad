package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_that_finds_the_hold_gone_reports_it_lost: a hold whose key
// vanished (a restart, a force-unlock) before the watchdog's next renewal
// is found lost by its Unlock, which returns ErrLost; by then the hold's
// lost signal is closed, its Context has ended with a cause matching
// ErrLost, not ErrNotHeld as for a release, and Trace.Released has
// reported the loss, in cohort mode as without it.
func TestUnlock_that_finds_the_hold_gone_reports_it_lost(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	plainAndCohort(t, func(t *testing.T, opts []lockkit.Option) {
		name := redistest.Unique(t)
		released := make(chan lockkit.ReleasedInfo, 1)
		trace := lockkit.WithTrace(&lockkit.Trace{Released: func(i lockkit.ReleasedInfo) { released <- i }})
		m := reentrant.New(redistest.Lockkit(t, rc), name, append(opts, trace)...)
		redistest.MustLock(t, m)
		ctx := redistest.Ctx(t, 10*time.Second)
		held, lost := m.Context(ctx), m.Lost()
		if err := rc.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
			t.Fatal(err)
		}
		redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
		if !redistest.Closed(lost) {
			t.Error("Unlock returned ErrLost, but the hold's lost signal is open")
		}
		if held.Err() == nil {
			t.Fatal("Unlock returned ErrLost, but the hold's Context has not ended")
		}
		redistest.WantErr(t, context.Cause(held), lockkit.ErrLost)
		select {
		case i := <-released:
			if !i.Ended {
				t.Errorf("Trace.Released = %+v; want the hold ended", i)
			}
			redistest.WantErr(t, i.Err, lockkit.ErrLost)
		default:
			t.Error("Unlock returned ErrLost, and Trace.Released was not called")
		}
		redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	})
}
