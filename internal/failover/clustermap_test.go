package failover_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestFailover_SIGKILL_of_a_Cluster_master_keeps_short_leases: a killed
// master answers nothing, not MOVED, so a cluster client with go-redis's
// defaults (the harness's) would go on sending to it until its
// ClusterStateReloadInterval, a minute, had passed: every renewal and
// Unlock failing, the holds lost long before. Every kind holds a lock on
// the master that is killed, with a 6 s lease (a failover takes about 2 s
// here: the nodes' timeout is 1 s), its replica caught up;
// for two leases after the failover no hold is reported lost, then the
// probe's checks run (another owner cannot take the lock, the holder's
// Unlock frees it, the blocked Lock gets it).
func TestFailover_SIGKILL_of_a_Cluster_master_keeps_short_leases(t *testing.T) {
	t.Parallel()
	const lease = 6 * time.Second
	cl := redistest.StartClusterWithReplicas(t)
	d := cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.KillMaster(t, m) })
	holders := redistest.Lockkit(t, d.client(t), lockkit.WithWatchdogTimeout(lease))
	waiters := redistest.Lockkit(t, d.client(t))
	var probes []*probe
	for _, k := range kinds() {
		probes = append(probes, hold(t, k, holders, waiters, pickName(t, k, d)))
	}
	d.replicated(t)
	d.failover(t)
	kept := time.NewTimer(2 * lease)
	defer kept.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-kept.C:
			waiting = false
		case <-tick.C:
		}
		for _, p := range probes {
			if redistest.AnyClosed(p.lost) {
				t.Fatalf("%s: the hold was reported lost after the failover, its replica caught up", p.k.name)
			}
		}
	}
	for _, p := range probes {
		t.Run(p.k.name, func(t *testing.T) {
			t.Parallel()
			p.check(t, waiters)
		})
	}
}
