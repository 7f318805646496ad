package clusterfault_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// failoverWake bounds how long after the release at the new master a
// waiter blocked across a failover gets the lock: a Client looks up the
// slots of its shard channels every health interval (2 s) and subscribes
// again where they moved, so that the release reaches it; the rest is
// room for a loaded machine. The holds' lease is the default 30 s, whose
// end would wake a waiter that no release reached.
const failoverWake = 5 * time.Second

// failovers are the ways the tests fail over a master of a Cluster with
// replicas.
var failovers = []struct {
	name string
	run  func(t testing.TB, cl *redistest.Cluster, master *redistest.Server)
}{
	{"CLUSTER_FAILOVER", func(t testing.TB, cl *redistest.Cluster, m *redistest.Server) { cl.Failover(t, m) }},
	{"SIGKILL_master", func(t testing.TB, cl *redistest.Cluster, m *redistest.Server) { cl.KillMaster(t, m) }},
}

// held is a kind's lock held on the master failed over, with owners
// waiting for it in the holder's process and in another.
type held struct {
	k         kind
	name      string
	holder    lockkit.Locker
	lost      []<-chan struct{}
	near, far *waiter
}

// TestFailover_wakes_the_waiters_of_every_kind_within_the_health_interval
// holds each kind's lock on a master (a multi-lock's first member; its
// other lives on another master) with owners waiting for it in the
// holder's process and in another, waits for the replicas to catch up and
// fails the master over. Every hold survives, as the Cluster section of
// the README promises with the replicas caught up; the holder's Unlock at
// the new master then wakes the waiters in turn, each within
// failoverWake, long before the lease could, and nothing is left.
func TestFailover_wakes_the_waiters_of_every_kind_within_the_health_interval(t *testing.T) {
	for _, f := range failovers {
		t.Run(f.name, func(t *testing.T) {
			cl := redistest.StartClusterWithReplicas(t)
			target := cl.Servers()[0]
			cc := cl.Client(t)
			holders := redistest.Lockkit(t, cl.Client(t))
			others := redistest.Lockkit(t, cl.Client(t))
			var locks []*held
			for _, k := range kinds() {
				h := &held{k: k, name: drawName(t, k, cc, target.Addr())}
				h.holder = k.holder(holders, h.name)
				if err := h.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
					t.Fatalf("%s: holder's Lock: %v", k.name, err)
				}
				h.lost = redistest.LostSignals(h.holder)
				h.near = startWaiting(t, k.waiter, holders, h.name)
				h.far = startWaiting(t, k.waiter, others, h.name)
				locks = append(locks, h)
			}
			cl.WaitReplicated(t)
			f.run(t, cl, target)
			for _, h := range locks {
				t.Run(h.k.name, func(t *testing.T) {
					if redistest.AnyClosed(h.lost) {
						t.Fatal("the hold was reported lost across a failover with the replicas caught up")
					}
					unlockAfterFailover(t, h.holder)
					wokenInTurn(t, h.k.shared, failoverWake, h.near, h.far)
					for _, n := range h.k.members(h.name) {
						redistest.AssertCleanWithin(t, cc, n, time.Second)
					}
				})
			}
		})
	}
}

// unlockAfterFailover calls holder's Unlock until it frees the lock, and
// fails the test unless it does within waitBound: right after a failover
// the client may still talk to the old master for a moment (the call
// then fails with a network error or a redirection, and a retried Unlock
// is safe). A multi-lock's retry reports ErrNotHeld for the members the
// first call released.
func unlockAfterFailover(t *testing.T, holder lockkit.Locker) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		err := holder.Unlock(redistest.Ctx(t, callTimeout))
		if _, multi := holder.(*multilock.Mutex); multi && errors.Is(err, lockkit.ErrNotHeld) {
			err = nil
		}
		if err == nil {
			return
		}
		if errors.Is(err, lockkit.ErrLost) || time.Now().After(deadline) {
			t.Fatalf("holder's Unlock after the failover: %v", err)
		}
		t.Logf("holder's Unlock after the failover: %v; trying again", err)
		time.Sleep(50 * time.Millisecond)
	}
}
