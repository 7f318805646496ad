package clusterfault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestObserve_after_its_master_was_killed_subscribes_at_the_new_master: a
// Client has read an election on a Cluster (so its map of slots names the
// election's master), and that master is killed and replaced by its
// replica. An Observe on the Client, whose subscribe is the first command
// it sends there, fails while the map names the dead master, and has the
// map read again: an Observe a moment later subscribes at the new master.
// Before, nothing read the map again, and Observe failed until go-redis
// did so itself, about a minute later.
func TestObserve_after_its_master_was_killed_subscribes_at_the_new_master(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t)
	target := cl.Servers()[0]
	cc := cl.Client(t)
	name := redistest.Unique(t)
	for masterOf(t, cc, name) != target.Addr() {
		name = redistest.Unique(t)
	}
	e := election.New(redistest.Lockkit(t, cl.Client(t)), name)
	if _, err := e.Leader(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatal(err)
	}
	cl.KillMaster(t, target)
	redistest.Eventually(t, 15*time.Second, "an Observe to subscribe at the new master", func() bool {
		leaders, err := e.Observe(redistest.Ctx(t, callTimeout))
		if err != nil {
			return false
		}
		if l := redistest.Receive(t, leaders, callTimeout, "the current leader"); l != (election.Leader{}) {
			t.Errorf("leader %+v; want none", l)
		}
		return true
	})
}
