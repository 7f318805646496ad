package redistest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	// cluster configuration after it was created.
	clusterReadyTimeout = 30 * time.Second
	// maxNameTries bounds how many names NamesOnDistinctMasters draws.
	maxNameTries = 1000
)

// Cluster is a Redis Cluster of three masters and no replicas. Each node
// is a [Server] started with cluster-enabled yes, its cluster config file in
// its own temporary directory and a 2 s cluster-node-timeout. Every node is
// killed in t.Cleanup.
type Cluster struct {
	servers []*Server
}

// StartCluster starts three cluster nodes, gives each a third of the slots
// and joins them, and waits until every node reports cluster_state:ok with
// all 16384 slots assigned and all nodes agree on the same slot map, so
// that a ClusterClient works at once. It skips the test when redis-server
// is not installed.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{servers: startServers(t, clusterMasters, true)}
	if err := c.create(); err != nil {
		t.Fatal(err)
	}
	if err := c.waitReady(clusterReadyTimeout); err != nil {
		t.Fatal(err)
	}
	return c
}

// Servers returns the cluster's nodes. Killing, stalling or restarting one
// of them affects the cluster as it would in production: a restarted node
// rejoins with its old slots and no data.
func (c *Cluster) Servers() []*Server { return slices.Clone(c.servers) }

// Client returns a new go-redis cluster client seeded with every node's
// address. It is closed in t.Cleanup.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs()})
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// addrs returns the addresses of the cluster's nodes.
func (c *Cluster) addrs() []string {
	addrs := make([]string, len(c.servers))
	for i, s := range c.servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// create does what `redis-cli --cluster create` does for masters only:
// each node takes a contiguous share of the slots and a config epoch of
// its own (so that no epoch collision needs resolving), then the first
// node meets the others and gossip introduces them to each other.
func (c *Cluster) create() error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterReadyTimeout)
	defer cancel()
	n := len(c.servers)
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
			lo, hi := i*clusterSlots/n, (i+1)*clusterSlots/n-1
			if err := rc.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
				return err
			}
			return rc.Do(ctx, "cluster", "set-config-epoch", i+1).Err()
		}); err != nil {
			return err
		}
	}
	return step(c.servers[0], func(rc *redis.Client) error {
		for _, s := range c.servers[1:] {
			if err := rc.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(s.port)).Err(); err != nil {
				return err
			}
		}
		return nil
	})
}

// waitReady polls every node until all of them report a healthy cluster
// with the same view of nodes and slots, or timeout passes.
func (c *Cluster) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := c.check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: cluster %s not ready within %v: %w",
				strings.Join(c.addrs(), " "), timeout, err)
		}
		<-tick.C
	}
}

// check returns nil when every node reports cluster_state:ok, all slots
// assigned and ok, all three nodes known, and an identical, healthy view of
// the nodes and their slots.
func (c *Cluster) check() error {
	addrs := c.addrs()
	views := make([]string, len(addrs))
	for i, addr := range addrs {
		info, nodes, err := clusterState(addr)
		if err == nil {
			err = checkClusterInfo(info)
		}
		if err == nil {
			views[i], err = clusterView(addrs, nodes)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
	}
	for i, v := range views[1:] {
		if v != views[0] {
			return fmt.Errorf("nodes disagree:\n%s:\n%s\n%s:\n%s", addrs[0], views[0], addrs[i+1], v)
		}
	}
	return nil
}

// clusterState returns the CLUSTER INFO and CLUSTER NODES replies of the
// node at addr.
func clusterState(addr string) (info, nodes string, err error) {
	rc := adminClient(addr)
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if info, err = rc.ClusterInfo(ctx).Result(); err != nil {
		return "", "", err
	}
	nodes, err = rc.ClusterNodes(ctx).Result()
	return info, nodes, err
}

// checkClusterInfo checks a CLUSTER INFO reply.
func checkClusterInfo(info string) error {
	for _, want := range [...]struct{ field, value string }{
		{"cluster_state", "ok"},
		{"cluster_slots_assigned", strconv.Itoa(clusterSlots)},
		{"cluster_slots_ok", strconv.Itoa(clusterSlots)},
		{"cluster_known_nodes", strconv.Itoa(clusterMasters)},
		{"cluster_size", strconv.Itoa(clusterMasters)},
	} {
		if got, _ := infoField(info, want.field); got != want.value {
			return fmt.Errorf("%s is %q, want %q", want.field, got, want.value)
		}
	}
	return nil
}

// clusterView turns a CLUSTER NODES reply into a canonical description of
// the cluster (id, address, role and slots of every node, sorted by id) so
// that the views of different nodes can be compared. It fails if a node is
// unknown, unhealthy or not connected.
func clusterView(addrs []string, nodes string) (string, error) {
	var lines []string
	seen := map[string]bool{}
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		id, addr, flags, link := f[0], f[1], f[2], f[7]
		addr, _, _ = strings.Cut(addr, "@")
		if !slices.Contains(addrs, addr) {
			return "", fmt.Errorf("unexpected node address %q in %q", addr, strings.TrimSpace(line))
		}
		role := ""
		for flag := range strings.SplitSeq(flags, ",") {
			switch flag {
			case "master", "slave":
				role = flag
			case "fail", "fail?", "handshake", "noaddr":
				return "", fmt.Errorf("node %s is %s", addr, flags)
			}
		}
		if link != "connected" {
			return "", fmt.Errorf("node %s link is %s", addr, link)
		}
		seen[addr] = true
		lines = append(lines, strings.Join(append([]string{id, addr, role}, f[8:]...), " "))
	}
	if len(seen) != len(addrs) {
		return "", errors.New("not every node is known yet")
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), nil
}

// NamesOnDistinctMasters returns n lock names, unique as by [Unique], whose
// keys (everything tagged {name}) live on n different masters of the
// cluster cc.
func NamesOnDistinctMasters(t testing.TB, cc *redis.ClusterClient, n int) []string {
	t.Helper()
	ctx := Ctx(t, queryTimeout)
	var names []string
	seen := map[string]bool{}
	for range maxNameTries {
		name := Unique(t)
		node, err := cc.MasterForKey(ctx, "{"+name+"}")
		if err != nil {
			t.Fatal(err)
		}
		if addr := node.Options().Addr; !seen[addr] {
			seen[addr] = true
			names = append(names, name)
			if len(names) == n {
				return names
			}
		}
	}
	t.Fatalf("found no %d names on distinct masters", n)
	return nil
}
