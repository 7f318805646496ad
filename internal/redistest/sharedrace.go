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

// RaceClient runs a [CloseRace] whose rounds each make a Client of rc
// and pick a fresh lock name, from which round makes the rest of the
// round: its Close and Done are the Client's.
func RaceClient(t *testing.T, rc redis.UniversalClient, round func(t *testing.T, lc *lockkit.Client, name string) Round) {
	t.Helper()
	CloseRace{Round: func(t *testing.T) Round {
		lc := lockkit.New(rc)
		rd := round(t, lc, Unique(t))
		rd.Close, rd.Done = func() { _ = lc.Close() }, lc.Done()
		return rd
	}}.Run(t)
}

// RaceOnNetworks runs [RaceClient] on srv through a fast and a slow
// network (see [OnNetworks]).
func RaceOnNetworks(t *testing.T, srv *Server, round func(t *testing.T, lc *lockkit.Client, name string) Round) {
	t.Helper()
	OnNetworks(t, func(t *testing.T, rcs []redis.UniversalClient) { RaceClient(t, rcs[0], round) }, srv)
}

// RaceLocks runs [RaceClient] with a [LockRace] of the lock values that
// locks makes of each round's Client and lock name, and checks that
// nothing of the lock is left in Redis once the goroutines gave back what
// they held, by rules.
func RaceLocks(t *testing.T, rc redis.UniversalClient, rules RaceRules, locks func(lc *lockkit.Client, name string) []RaceLock) {
	t.Helper()
	RaceClient(t, rc, func(t *testing.T, lc *lockkit.Client, name string) Round {
		lr := &LockRace{Locks: locks(lc, name), Done: lc.Done(), RaceRules: rules}
		return Round{
			Racer: lr.Racer,
			Check: func(t *testing.T) { AssertCleanWithin(t, rc, name, turnLinger) },
		}
	})
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
