package spin_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestClose_racing_calls_on_shared_values_leaves_nothing_held: goroutines
// share spin lock values as the docs allow (one Mutex, Mutexes of one
// owner id, one Mutex without re-entry) and lock, try, unlock,
// force-unlock and query them while another owner spins and
// the Client closes at a seeded random point. No call races, panics or
// hangs, each returns what the docs allow (ErrClosed once the Client is
// closed), no goroutine is left, and once every goroutine unlocked what
// it locked nothing of the lock is left in Redis.
func TestClose_racing_calls_on_shared_values_leaves_nothing_held(t *testing.T) {
	redistest.RaceShared(t, redistest.StartServer(t), func(lc *lockkit.Client, name string, opts ...lockkit.Option) redistest.RaceLock {
		return spin.New(lc, name, opts...)
	})
}
