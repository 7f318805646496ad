package redistest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// clusterMasters is the number of master nodes in a [Cluster].
	clusterMasters = 3
	// clusterSlots is the number of hash slots in Redis Cluster.
	clusterSlots = 16384
	// clusterReadyTimeout bounds the wait for every node to agree on the
	// cluster configuration after it was created, and after a failover.
	clusterReadyTimeout = 30 * time.Second
)

// The cluster settings of the nodes: a cluster without replicas can take
// its time to notice a node gone, since nothing can take over; one with
// replicas notices within a second, so that a killed master is replaced
// within about two, and lets any replica take over however long it was
// cut off (validity factor 0) and none migrate to another master.
var (
	clusterArgs           = []string{"--cluster-node-timeout", "2000"}
	replicatedClusterArgs = []string{
		"--cluster-node-timeout", "1000",
		"--cluster-replica-validity-factor", "0",
		"--cluster-allow-replica-migration", "no",
	}
)

// Cluster is a Redis Cluster of three masters, with or without a replica
// each. Each node is a [Server] started with cluster-enabled yes and its
// cluster config file in its own temporary directory; the
// cluster-node-timeout is 2 s without replicas and 1 s with them. Every
// node is killed in t.Cleanup.
type Cluster struct {
	servers  []*Server // the masters as started, then their replicas
	replicas bool
}

// StartCluster starts three cluster nodes, gives each a third of the slots
// and joins them, and waits until every node reports cluster_state:ok with
// all 16384 slots assigned and all nodes agree on the same slot map, so
// that a ClusterClient works at once. It skips the test when redis-server
// is not installed.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, false)
}

// StartClusterWithReplicas starts a Cluster of three masters, as
// [StartCluster] does, and a replica of each, and returns once every node
// agrees on the masters, their slots and their replicas and every replica
// is in sync with its master. [Cluster.Failover] and [Cluster.KillMaster]
// then hand a master's slots to its replica.
func StartClusterWithReplicas(t testing.TB) *Cluster {
	t.Helper()
	return startCluster(t, true)
}

func startCluster(t testing.TB, replicas bool) *Cluster {
	t.Helper()
	n, args := clusterMasters, clusterArgs
	if replicas {
		n, args = 2*clusterMasters, replicatedClusterArgs
	}
	c := &Cluster{servers: startServers(t, n, args), replicas: replicas}
	if err := c.create(); err != nil {
		t.Fatal(err)
	}
	if err := c.waitReady(clusterReadyTimeout); err != nil {
		t.Fatal(err)
	}
	return c
}

// Servers returns the cluster's nodes: the masters as started, then (with
// replicas) the replica of each, in the same order, then the masters
// added by [Cluster.AddMaster]. A failover changes
// who is master, not this order. Killing, stalling or restarting one of
// them affects the cluster as it would in production: a restarted node
// rejoins with its old slots and no data.
func (c *Cluster) Servers() []*Server { return slices.Clone(c.servers) }

// Client returns a new go-redis cluster client seeded with every node's
// address, with go-redis's defaults: its slot map is read again on a
// MOVED and otherwise once a minute, and lockkit has it read again when a
// master cannot be reached (see internal/slotmap), as after
// [Cluster.KillMaster]. It is closed in t.Cleanup.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs()})
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// addrs returns the addresses of the cluster's nodes.
func (c *Cluster) addrs() []string { return addrsOf(c.servers) }

// create does what `redis-cli --cluster create` does: each master takes a
// contiguous share of the slots and every node a config epoch of its own
// (so that no epoch collision needs resolving), then the first node meets
// the others and gossip introduces them to each other; each replica then
// replicates its master once it knows it.
func (c *Cluster) create() error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterReadyTimeout)
	defer cancel()
	step := func(s *Server, f func(*redis.Client) error) error {
		rc := adminClient(s.Addr())
		defer rc.Close()
		if err := f(rc); err != nil {
			return fmt.Errorf("redistest: creating the cluster at %s: %w", s.Addr(), err)
		}
		return nil
	}
	for i, s := range c.servers {
		if err := step(s, func(rc *redis.Client) error {
			if i < clusterMasters {
				lo, hi := i*clusterSlots/clusterMasters, (i+1)*clusterSlots/clusterMasters-1
				if err := rc.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
					return err
				}
			}
			return rc.Do(ctx, "cluster", "set-config-epoch", i+1).Err()
		}); err != nil {
			return err
		}
	}
	if err := step(c.servers[0], func(rc *redis.Client) error {
		for _, s := range c.servers[1:] {
			if err := rc.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(s.port)).Err(); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i, r := range c.servers[clusterMasters:] {
		m := c.servers[i]
		var id string
		if err := step(m, func(rc *redis.Client) (err error) {
			id, err = rc.ClusterMyID(ctx).Result()
			return err
		}); err != nil {
			return err
		}
		// REPLICATE fails until gossip has told the replica of its master.
		if err := settle(clusterReadyTimeout, "a replica to know its master", func() error {
			return step(r, func(rc *redis.Client) error { return rc.ClusterReplicate(ctx, id).Err() })
		}); err != nil {
			return err
		}
	}
	return nil
}
