package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestChurn_of_many_names_in_cohort_mode_leaves_nothing_behind is
// TestChurn_of_many_names_leaves_nothing_behind for Mutexes in cohort mode
// (WithLocalHandoff): the cohorts, kept in their Client while in use, are
// dropped with the last Lock or hold of each name.
func TestChurn_of_many_names_in_cohort_mode_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{
		New: func(c *lockkit.Client, name string) lockkit.Locker {
			return reentrant.New(c, name, reentrant.WithLocalHandoff(4, time.Second))
		},
		LocalWaiters: func(m lockkit.Locker) int { return reentrant.LocalWaiters(m.(*reentrant.Mutex)) },
	}.Run(t)
}
