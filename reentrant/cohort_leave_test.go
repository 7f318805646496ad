package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_keeps_no_cohort_once_a_lock_lost_and_taken_again_is_released:
// the Client keeps a lock's cohort only while a Mutex holds through it or
// a Lock is under way. A Mutex whose hold is lost, that locks again and
// then unlocks, leaves none behind (else every name so used would stay in
// memory for the Client's life), with re-entry or without.
func TestLocalHandoff_keeps_no_cohort_once_a_lock_lost_and_taken_again_is_released(t *testing.T) {
	c, lc, name := oneProcess(t)
	cohorts := func() int {
		n := 0
		lc.Locals(func(m map[any]any) { n = len(m) })
		return n
	}
	ctx := redistest.Ctx(t, redistest.Hang)
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
	}{{"reentrant", nil}, {"without reentry", []lockkit.Option{lockkit.WithoutReentry()}}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]lockkit.Option{handoff, lockkit.WithWatchdogTimeout(300 * time.Millisecond)}, tc.opts...)
			for range 10 {
				m := reentrant.New(lc, name, opts...)
				redistest.MustLock(t, m)
				if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
					t.Fatal(err)
				}
				redistest.Receive(t, m.Lost(), redistest.Hang, "the lost signal")
				redistest.MustLock(t, m)
				redistest.WantHoldCount(t, m, 1)
				redistest.MustUnlock(t, m)
				redistest.Eventually(t, 10*time.Second, "the Client to drop the cohort", func() bool {
					return cohorts() == 0
				})
			}
		})
	}
	redistest.AssertClean(t, c, name)
}
