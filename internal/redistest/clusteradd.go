package redistest

import (
	"fmt"
	"strconv"
	"testing"
)

// AddMaster starts one more node, joins it to the cluster (CLUSTER MEET)
// as a master without slots, as `redis-cli --cluster add-node` does, and
// returns it once every node knows it and agrees on the cluster. Give it
// slots with [Cluster.BeginMigration] or [Cluster.MoveSlot]. It fails the
// test on a cluster with replicas. [Cluster.Servers] lists it last.
func (c *Cluster) AddMaster(t testing.TB) *Server {
	t.Helper()
	if c.replicas {
		t.Fatal("redistest: AddMaster on a Cluster with replicas")
	}
	s := startServers(t, 1, clusterArgs)[0]
	rc := adminClient(c.servers[0].Addr())
	defer rc.Close()
	if err := rc.ClusterMeet(Ctx(t, probeTimeout), "127.0.0.1", strconv.Itoa(s.port)).Err(); err != nil {
		t.Fatalf("redistest: CLUSTER MEET %s: %v", s.Addr(), err)
	}
	c.servers = append(c.servers, s)
	c.await(t, func(top *topology) error {
		if top.isMaster(s) {
			return fmt.Errorf("%s serves slots already", s.Addr())
		}
		return nil
	})
	return s
}
