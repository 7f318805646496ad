package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// cohorts returns how many cohorts lc keeps (see lockkit.Client.Locals).
func cohorts(lc *lockkit.Client) int {
	n := 0
	lc.Locals(func(m map[any]any) { n = len(m) })
	return n
}

// TestLocalHandoff_a_lost_holder_whose_own_Lock_waits_leaves_no_cohort_behind:
// a Mutex without re-entry holds the lock, and a second Lock of the same
// Mutex waits in memory for that hold. The hold is lost; the second Lock
// then takes a fresh hold from Redis, with a larger token, and once it is
// released the Client keeps no cohort: the lost hold's share of the
// cohort was given up when the Mutex took the fresh one, not kept for
// the Client's life.
func TestLocalHandoff_a_lost_holder_whose_own_Lock_waits_leaves_no_cohort_behind(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	m := reentrant.New(lc, name, handoff, lockkit.WithoutReentry(), lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	lost := m.Token()
	got := lockLocal(ctx, t, m, 1)
	if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, got, redistest.Hang, "the second Lock after the hold was lost"); err != nil {
		t.Fatal(err)
	}
	if m.Token() <= lost {
		t.Errorf("token after the loss %d, want more than the lost hold's %d", m.Token(), lost)
	}
	redistest.WantHoldCount(t, m, 1)
	redistest.MustUnlock(t, m)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.Eventually(t, 10*time.Second, "the Client to drop the cohort", func() bool {
		return cohorts(lc) == 0
	})
	redistest.AssertClean(t, c, name)
}
