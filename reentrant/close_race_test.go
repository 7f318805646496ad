package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestClose_racing_calls_on_shared_values_leaves_nothing_held: goroutines
// share lock values as the docs allow (one Mutex; Mutexes of one owner id;
// one Mutex without re-entry, whose goroutines exclude each other; Mutexes
// of one Client in cohort mode) and lock, try, unlock, force-unlock and
// query them while another owner contends and the Client closes at a
// seeded random point. No call races, panics or hangs, each returns what
// the docs allow (ErrClosed once the Client is closed), no goroutine is
// left, and once every goroutine unlocked what it locked nothing of the
// lock is left in Redis.
func TestClose_racing_calls_on_shared_values_leaves_nothing_held(t *testing.T) {
	srv := redistest.StartServer(t)
	redistest.RaceShared(t, srv, func(lc *lockkit.Client, name string, opts ...lockkit.Option) redistest.RaceLock {
		return reentrant.New(lc, name, opts...)
	})
	t.Run("local_handoff", func(t *testing.T) {
		redistest.RaceLocks(t, srv.Client(t), redistest.RaceRules{}, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			handoff := reentrant.WithLocalHandoff(4, time.Second)
			return []redistest.RaceLock{reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)}
		})
	})
}
