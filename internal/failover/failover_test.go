package failover_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// Generous bounds: reaching one means a hang.
const (
	callTimeout  = 10 * time.Second // one Lock, TryLock or Unlock
	waiterBound  = 90 * time.Second // the blocked Lock, failover included
	settleBound  = 30 * time.Second // a client finding the new master
	wakeUpBound  = 30 * time.Second // the blocked Lock, once the lock is free
	pickAttempts = 1000             // names drawn to find one on a master
)

// TestFailover_holds_survive_or_are_reported_lost_and_waiters_wake puts
// every lock kind through every failover of a deployment at once: a
// holder takes the lock, another owner blocks in Lock, the replicas catch
// up and the deployment fails over. Then the hold must have survived
// (another owner's TryLock fails) or been reported lost before another
// owner got it; the holder's Unlock (retried while the clients find the
// new master, as its documentation allows) releases it or reports the
// loss; the blocked Lock returns once the lock is free, holding it with a
// larger token; an election's observer, subscribed before the failover,
// reports the new leader. A latch counted down before the failover has an
// Await blocked on it: see latchProbe.check for what is checked there.
func TestFailover_holds_survive_or_are_reported_lost_and_waiters_wake(t *testing.T) {
	t.Parallel()
	eachDeployment(t, func(t *testing.T, d deployment) {
		holders := redistest.Lockkit(t, d.client(t))
		waiters := redistest.Lockkit(t, d.client(t))
		var probes []*probe
		for _, k := range kinds() {
			probes = append(probes, hold(t, k, holders, waiters, pickName(t, k, d)))
		}
		lp := awaitLatch(t, holders, waiters, pickName(t, kind{names: single}, d))
		d.replicated(t)
		lp.countDownTo(t, latchCount-2) // not waited for: a SIGKILL may lose it
		d.failover(t)
		// The holder's Unlock is to reach the new master (see the
		// replicaack test); the waiters find it by themselves.
		d.follow(t, holders.Redis())
		for _, p := range probes {
			t.Run(p.k.name, func(t *testing.T) {
				t.Parallel()
				p.check(t, waiters)
			})
		}
		t.Run("latch", func(t *testing.T) {
			t.Parallel()
			lp.check(t, d.lossless)
		})
	})
}

// pickName returns a unique lock name whose keys the failover of d moves;
// for a multi-lock, those of its first member (the other's may live on
// another master).
func pickName(t *testing.T, k kind, d deployment) string {
	t.Helper()
	for range pickAttempts {
		name := redistest.Unique(t)
		if d.affected == nil || d.affected(k.names(name)[0]) {
			return name
		}
	}
	t.Fatalf("no name found whose keys the failover moves")
	return ""
}
