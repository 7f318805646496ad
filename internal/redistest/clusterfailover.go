package redistest

import (
	"fmt"
	"testing"
)

// Failover makes the replica of master take over its slots with CLUSTER
// FAILOVER, which the master and replica coordinate so that no write is
// lost: the master stops serving its clients until the replica has
// caught up, and then answers them with MOVED. It returns the new master
// once every running node agrees that it serves the slots and that master
// is its replica, in sync. It fails the test if master is not a master
// with a replica.
func (c *Cluster) Failover(t testing.TB, master *Server) *Server {
	t.Helper()
	replica := c.replicaOf(t, master)
	rc := adminClient(replica.Addr())
	defer rc.Close()
	if err := rc.ClusterFailover(Ctx(t, probeTimeout)).Err(); err != nil {
		t.Fatalf("redistest: CLUSTER FAILOVER on %s: %v", replica.Addr(), err)
	}
	c.await(t, func(top *topology) error {
		if !top.isMaster(replica) || top.masterOf[master] != replica {
			return fmt.Errorf("%s is not yet the master of %s", replica.Addr(), master.Addr())
		}
		return nil
	})
	return replica
}

// KillMaster kills master with SIGKILL and returns its replica once the
// replica has taken over its slots: every running node agrees that it
// serves them and that master has failed. It takes about two seconds (a
// node timeout, then the replica's election). master stays stopped; it
// fails the test if master is not a master with a replica.
func (c *Cluster) KillMaster(t testing.TB, master *Server) *Server {
	t.Helper()
	replica := c.replicaOf(t, master)
	master.Kill(t)
	c.await(t, func(top *topology) error {
		if !top.isMaster(replica) {
			return fmt.Errorf("%s has not yet taken over from %s", replica.Addr(), master.Addr())
		}
		return nil
	})
	return replica
}

// replicaOf returns the replica of master once the cluster is settled
// with master a master, and fails the test at once if it has none.
func (c *Cluster) replicaOf(t testing.TB, master *Server) *Server {
	t.Helper()
	var top *topology
	c.await(t, func(tp *topology) error {
		if !tp.isMaster(master) {
			return fmt.Errorf("%s is not a master", master.Addr())
		}
		top = tp
		return nil
	})
	replica := top.replicaOf(master)
	if replica == nil {
		t.Fatalf("redistest: master %s has no replica", master.Addr())
	}
	return replica
}
