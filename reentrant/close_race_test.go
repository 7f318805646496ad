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
	for _, tc := range []struct {
		name      string
		exclusive bool
		locks     func(lc *lockkit.Client, name string) []redistest.RaceLock
	}{
		{"one_value", false, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			m := reentrant.New(lc, name)
			return []redistest.RaceLock{m, m, m, reentrant.New(lc, name)}
		}},
		{"one_owner_id", false, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			return []redistest.RaceLock{
				reentrant.New(lc, name, lockkit.WithOwner("job")),
				reentrant.New(lc, name, lockkit.WithOwner("job")),
				reentrant.New(lc, name, lockkit.WithOwner("job")),
				reentrant.New(lc, name),
			}
		}},
		{"without_reentry", true, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			return []redistest.RaceLock{reentrant.New(lc, name, lockkit.WithoutReentry())}
		}},
		{"local_handoff", false, func(lc *lockkit.Client, name string) []redistest.RaceLock {
			return []redistest.RaceLock{
				reentrant.New(lc, name, reentrant.WithLocalHandoff(4, time.Second)),
				reentrant.New(lc, name, reentrant.WithLocalHandoff(4, time.Second)),
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := srv.Client(t)
			redistest.CloseRace{Round: func(t *testing.T) redistest.Round {
				lc := lockkit.New(rc)
				name := redistest.Unique(t)
				lr := &redistest.LockRace{Locks: tc.locks(lc, name), Done: lc.Done(), Exclusive: tc.exclusive}
				return redistest.Round{
					Close: func() { _ = lc.Close() },
					Done:  lc.Done(),
					Racer: lr.Racer,
					Check: func(t *testing.T) { redistest.AssertCleanWithin(t, rc, name, time.Second) },
				}
			}}.Run(t)
		})
	}
}
