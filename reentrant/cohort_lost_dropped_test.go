package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_lost_hold_never_unlocked_leaves_no_cohort: a Mutex in
// cohort mode whose hold is lost (another owner force-unlocked it) and
// that is never called again, as a dropped lock value is not, leaves no
// cohort in its Client once the loss was handled; another Mutex of the
// name locks as usual, and the lost holder's Unlock, called all the same,
// still reports ErrLost.
func TestLocalHandoff_a_lost_hold_never_unlocked_leaves_no_cohort(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	holder := reentrant.New(lc, name, handoff)
	redistest.MustLock(t, holder)
	force := reentrant.New(redistest.Lockkit(t, c), name)
	if ok, err := force.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	lc.Watchdog().Check()
	redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal")
	redistest.Eventually(t, 10*time.Second, "no cohort kept", func() bool { return cohorts(lc) == 0 })

	next := reentrant.New(lc, name, handoff)
	redistest.MustLock(t, next)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.MustUnlock(t, next)
	redistest.Eventually(t, 10*time.Second, "no cohort kept after the next hold", func() bool { return cohorts(lc) == 0 })
	redistest.AssertCleanWithin(t, c, name, time.Second)
}
