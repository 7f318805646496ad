package multilock_test

import (
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestClose_racing_calls_on_a_shared_Mutex_leaves_nothing_held: goroutines
// share a Mutex over a reentrant and a fair lock, as the docs allow (its
// owner is its locks' owners), and lock, try, unlock, force-unlock and
// query it while a Mutex of another owner over the same names contends and
// the Client closes at a seeded random point, on a fast and a slow network.
// No call races, panics or hangs, each returns what the docs allow
// (ErrClosed once the Client is closed), no goroutine is left, and once
// every goroutine unlocked what it locked nothing of either lock is left in
// Redis.
func TestClose_racing_calls_on_a_shared_Mutex_leaves_nothing_held(t *testing.T) {
	redistest.RaceOnNetworks(t, redistest.StartServer(t), func(t *testing.T, lc *lockkit.Client, a string) redistest.Round {
		b := redistest.Unique(t)
		owner := func() *multilock.Mutex {
			return multilock.New([]lockkit.Locker{reentrant.New(lc, a), fair.New(lc, b)})
		}
		m := owner()
		lr := &redistest.LockRace{Locks: []redistest.RaceLock{m, m, m, owner()}, Done: lc.Done()}
		return redistest.Round{
			Racer: lr.Racer,
			Check: func(t *testing.T) {
				redistest.AssertCleanWithin(t, lc.Redis(), a, time.Second)
				redistest.AssertCleanWithin(t, lc.Redis(), b, time.Second)
			},
		}
	})
}

// TestClose_racing_calls_on_a_shared_RedLock_leaves_nothing_held:
// goroutines share a RedLock over three masters, and RedLocks of one owner
// id, as the docs allow, and lock, try, unlock and query them while a
// RedLock of another owner contends and the Clients of every node close at
// a seeded random point, on a fast and a slow network. No call races,
// panics or hangs, each returns what the docs allow (ErrClosed once the
// Clients are closed), no goroutine is left, and once every goroutine
// unlocked what it locked nothing of the lock is left on any node.
func TestClose_racing_calls_on_a_shared_RedLock_leaves_nothing_held(t *testing.T) {
	redistest.OnNetworks(t, raceRedLocks, redistest.StartMasters(t, 3)...)
}

// raceRedLocks runs the races of shared RedLocks over the masters of rcs.
func raceRedLocks(t *testing.T, rcs []redis.UniversalClient) {
	for _, tc := range []struct {
		name  string
		locks func(lcs []*lockkit.Client, name string) []redistest.RaceLock
	}{
		{"one_value", func(lcs []*lockkit.Client, name string) []redistest.RaceLock {
			r := multilock.NewRedLock(lcs, name)
			return []redistest.RaceLock{r, r, r, multilock.NewRedLock(lcs, name)}
		}},
		{"one_owner_id", func(lcs []*lockkit.Client, name string) []redistest.RaceLock {
			job := lockkit.WithOwner("job")
			return []redistest.RaceLock{
				multilock.NewRedLock(lcs, name, job),
				multilock.NewRedLock(lcs, name, job),
				multilock.NewRedLock(lcs, name, job),
				multilock.NewRedLock(lcs, name),
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redistest.CloseRace{Round: func(t *testing.T) redistest.Round {
				var lcs []*lockkit.Client
				for _, rc := range rcs {
					lcs = append(lcs, lockkit.New(rc))
				}
				name := redistest.Unique(t)
				done := make(chan struct{})
				go func() {
					for _, lc := range lcs {
						<-lc.Done()
					}
					close(done)
				}()
				lr := &redistest.LockRace{Locks: tc.locks(lcs, name), Done: done}
				return redistest.Round{
					Close: func() {
						var wg sync.WaitGroup
						for _, lc := range lcs {
							wg.Go(func() { _ = lc.Close() })
						}
						wg.Wait()
					},
					Done:  done,
					Racer: lr.Racer,
					Check: func(t *testing.T) {
						for _, rc := range rcs {
							redistest.AssertCleanWithin(t, rc, name, time.Second)
						}
					},
				}
			}}.Run(t)
		})
	}
}
