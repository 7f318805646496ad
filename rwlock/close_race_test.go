package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestClose_racing_calls_on_shared_values_leaves_nothing_held: goroutines
// share RWMutexes as the docs allow (one RWMutex whose goroutines read and
// write through it, sharing its holds; RWMutexes of one owner id) and
// lock, read-lock, try, unlock, force-unlock and query them while another
// owner reads and writes and the Client closes at a seeded random point.
// No call races, panics or hangs, each returns what the docs allow
// (ErrUpgrade for a writer whose owner holds only the read lock,
// ErrClosed once the Client is closed), no goroutine is left, and once
// every goroutine unlocked what it locked nothing of the lock is left in
// Redis.
func TestClose_racing_calls_on_shared_values_leaves_nothing_held(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	sides := func(ms ...*rwlock.RWMutex) []redistest.RaceLock {
		var locks []redistest.RaceLock
		for _, m := range ms {
			locks = append(locks, m, m.RLocker().(redistest.RaceLock))
		}
		return locks
	}
	t.Run("one_value", func(t *testing.T) {
		redistest.RaceLocks(t, rc, redistest.RaceRules{LockErrs: []error{lockkit.ErrUpgrade}}, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			m := rwlock.New(lc, name)
			return sides(m, m, rwlock.New(lc, name))
		})
	})
	t.Run("one_owner_id", func(t *testing.T) {
		redistest.RaceLocks(t, rc, redistest.RaceRules{LockErrs: []error{lockkit.ErrUpgrade}}, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			job := lockkit.WithOwner("job")
			return sides(rwlock.New(lc, name, job), rwlock.New(lc, name, job), rwlock.New(lc, name))
		})
	})
}
