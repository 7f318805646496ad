package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_Mutex_whose_cohort_was_dropped_joins_the_process_s_cohort_again:
// once a Mutex in cohort mode has unlocked and nobody else uses the
// lock's cohort, the Client drops it. The Mutex's next Lock joins the
// cohort the process keeps for the lock from then on, not the dropped
// one it knew: another Mutex of the process that locks meanwhile waits
// behind it in memory, and gets the lock by a hand-over.
func TestLocalHandoff_a_Mutex_whose_cohort_was_dropped_joins_the_process_s_cohort_again(t *testing.T) {
	_, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m, other := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	redistest.Eventually(t, 10*time.Second, "the cohort to be dropped", func() bool { return cohorts(lc) == 0 })
	redistest.MustLock(t, m)
	handOver(ctx, t, m, other)
	redistest.MustUnlock(t, other)
}
