package redistest

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// turnLinger bounds how long a released lock's keys may outlive its last
// Unlock: the key naming the process it is kept for lasts 100 ms.
const turnLinger = time.Second

// shortLease is the lease of the values that RaceShared has renewed
// often.
const shortLease = 300 * time.Millisecond

// RaceLocks runs a [CloseRace] of a [LockRace] whose rounds each make a
// Client of rc and, with locks, the lock values of a fresh lock name, and
// check that nothing of the lock is left in Redis once the goroutines
// gave back what they held, by rules.
func RaceLocks(t *testing.T, rc redis.UniversalClient, rules RaceRules, locks func(lc *lockkit.Client, name string) []RaceLock) {
	t.Helper()
	CloseRace{Round: func(t *testing.T) Round {
		lc := lockkit.New(rc)
		name := Unique(t)
		lr := &LockRace{Locks: locks(lc, name), Done: lc.Done(), RaceRules: rules}
		return Round{
			Close: func() { _ = lc.Close() },
			Done:  lc.Done(),
			Racer: lr.Racer,
			Check: func(t *testing.T) { AssertCleanWithin(t, rc, name, turnLinger) },
		}
	}}.Run(t)
}

// RaceShared runs [RaceLocks] on srv for an exclusive kind, whose lock
// values newLock makes, in each way the docs let goroutines share its
// values: one value, beside a value of another owner that contends
// (one_value); the same through a slow network, each command taking up to
// 3 ms longer each way (see [AddLatency]), with a lease of 300 ms renewed
// every 100 ms, so that acquires, releases and renewals are more often on
// their way at Close (one_value_slow_network); values of one owner id,
// lockkit.WithOwner, beside another owner's (one_owner_id); and one value
// made with lockkit.WithoutReentry, whose goroutines exclude each other
// (without_reentry).
func RaceShared(t *testing.T, srv *Server, newLock func(lc *lockkit.Client, name string, opts ...lockkit.Option) RaceLock) {
	t.Helper()
	rc := srv.Client(t)
	t.Run("one_value", func(t *testing.T) {
		RaceLocks(t, rc, RaceRules{}, func(lc *lockkit.Client, name string) []RaceLock {
			m := newLock(lc, name)
			return []RaceLock{m, m, m, newLock(lc, name)}
		})
	})
	t.Run("one_owner_id", func(t *testing.T) {
		RaceLocks(t, rc, RaceRules{}, func(lc *lockkit.Client, name string) []RaceLock {
			job := lockkit.WithOwner("job")
			return []RaceLock{newLock(lc, name, job), newLock(lc, name, job), newLock(lc, name, job), newLock(lc, name)}
		})
	})
	t.Run("one_value_slow_network", func(t *testing.T) {
		slow := srv.Client(t)
		AddLatency(slow, slowNetwork)
		RaceLocks(t, slow, RaceRules{}, func(lc *lockkit.Client, name string) []RaceLock {
			often := lockkit.WithWatchdogTimeout(shortLease)
			m := newLock(lc, name, often)
			return []RaceLock{m, m, m, newLock(lc, name, often)}
		})
	})
	t.Run("without_reentry", func(t *testing.T) {
		RaceLocks(t, rc, RaceRules{Exclusive: true}, func(lc *lockkit.Client, name string) []RaceLock {
			return []RaceLock{newLock(lc, name, lockkit.WithoutReentry())}
		})
	})
}
