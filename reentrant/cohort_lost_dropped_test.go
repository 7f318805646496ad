package reentrant_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_lost_hold_dropped_leaves_no_cohort: a Mutex in cohort
// mode whose hold is lost (another owner force-unlocked it) and that is
// then dropped, never called again, leaves no cohort in its Client once
// the garbage collector has found it unreachable; another Mutex of the
// name locks as usual. A lost holder that is kept is called again: its
// Unlock reports ErrLost, and then no cohort is kept either.
func TestLocalHandoff_a_lost_hold_dropped_leaves_no_cohort(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	loseHold(t, c, lc, name)
	redistest.Eventually(t, 10*time.Second, "no cohort kept once the lost holder is garbage", func() bool {
		runtime.GC()
		return cohorts(lc) == 0
	})

	next := reentrant.New(lc, name, handoff)
	redistest.MustLock(t, next)
	redistest.MustUnlock(t, next)
	kept := loseHold(t, c, lc, name)
	redistest.WantErr(t, kept.Unlock(ctx), lockkit.ErrLost)
	redistest.Eventually(t, 10*time.Second, "no cohort kept once the lost holder unlocked", func() bool { return cohorts(lc) == 0 })
	runtime.KeepAlive(kept)
	redistest.AssertCleanWithin(t, c, name, time.Second)
}

// loseHold locks name with a new Mutex of lc in cohort mode, has another
// owner force-unlock it through c, and returns the Mutex once it reported
// its hold lost.
func loseHold(t *testing.T, c *redis.Client, lc *lockkit.Client, name string) *reentrant.Mutex {
	t.Helper()
	holder := reentrant.New(lc, name, handoff)
	redistest.MustLock(t, holder)
	if ok, err := reentrant.New(redistest.Lockkit(t, c), name).ForceUnlock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	lc.Watchdog().Check()
	redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal")
	return holder
}
