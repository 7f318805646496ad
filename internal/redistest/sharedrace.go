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

// RaceLocks runs a [CloseRace] of a [LockRace] whose rounds each make a
// Client of rc and, with locks, the lock values of a fresh lock name, and
// check that nothing of the lock is left in Redis once the goroutines
// gave back what they held. exclusive and lockErrs are the LockRace's
// Exclusive and LockErrs.
func RaceLocks(t *testing.T, rc redis.UniversalClient, exclusive bool, locks func(lc *lockkit.Client, name string) []RaceLock, lockErrs ...error) {
	t.Helper()
	CloseRace{Round: func(t *testing.T) Round {
		lc := lockkit.New(rc)
		name := Unique(t)
		lr := &LockRace{Locks: locks(lc, name), Done: lc.Done(), Exclusive: exclusive, LockErrs: lockErrs}
		return Round{
			Close: func() { _ = lc.Close() },
			Done:  lc.Done(),
			Racer: lr.Racer,
			Check: func(t *testing.T) { AssertCleanWithin(t, rc, name, turnLinger) },
		}
	}}.Run(t)
}

// RaceShared runs [RaceLocks] for an exclusive kind, whose lock values
// newLock makes, in each way the docs let goroutines share its values:
// one value, beside a value of another owner that contends
// (one_value); values of one owner id, lockkit.WithOwner, beside another
// owner's (one_owner_id); and one value made with lockkit.WithoutReentry,
// whose goroutines exclude each other (without_reentry).
func RaceShared(t *testing.T, rc redis.UniversalClient, newLock func(lc *lockkit.Client, name string, opts ...lockkit.Option) RaceLock) {
	t.Helper()
	t.Run("one_value", func(t *testing.T) {
		RaceLocks(t, rc, false, func(lc *lockkit.Client, name string) []RaceLock {
			m := newLock(lc, name)
			return []RaceLock{m, m, m, newLock(lc, name)}
		})
	})
	t.Run("one_owner_id", func(t *testing.T) {
		RaceLocks(t, rc, false, func(lc *lockkit.Client, name string) []RaceLock {
			job := lockkit.WithOwner("job")
			return []RaceLock{newLock(lc, name, job), newLock(lc, name, job), newLock(lc, name, job), newLock(lc, name)}
		})
	})
	t.Run("without_reentry", func(t *testing.T) {
		RaceLocks(t, rc, true, func(lc *lockkit.Client, name string) []RaceLock {
			return []RaceLock{newLock(lc, name, lockkit.WithoutReentry())}
		})
	})
}
