package redistest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
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
	// clusterCreateTimeout bounds `redis-cli --cluster create`.
	clusterCreateTimeout = 60 * time.Second
	// clusterReadyTimeout bounds the wait for every node to agree on the
	// cluster configuration after it was created.
	clusterReadyTimeout = 30 * time.Second
)

// Cluster is a Redis Cluster of three masters and no replicas. Each node
// is a [Server] started with cluster-enabled yes, its cluster config file in
// its own temporary directory and a 2 s cluster-node-timeout. Every node is
// killed in t.Cleanup.
type Cluster struct {
	servers []*Server
}

// StartCluster starts three cluster nodes, joins them with
// `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, and
// waits until every node reports cluster_state:ok with all 16384 slots
// assigned and all nodes agree on the same slot map, so that a
// ClusterClient works at once. It calls [Require] first.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	Require(t)
	c := &Cluster{servers: startServers(t, clusterMasters, true)}
	if err := c.create(); err != nil {
		t.Fatal(err)
	}
	if err := c.waitReady(clusterReadyTimeout); err != nil {
		t.Fatal(err)
	}
	return c
}

// Servers returns the cluster's nodes. Killing or restarting one of them
// affects the cluster as it would in production: a restarted node rejoins
// with its old slots and no data.
func (c *Cluster) Servers() []*Server { return slices.Clone(c.servers) }

// Addrs returns the addresses of the cluster's nodes.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.servers))
	for i, s := range c.servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Client returns a new go-redis cluster client seeded with every node's
// address. It is closed in t.Cleanup.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// create assigns the slots and joins the nodes with redis-cli.
func (c *Cluster) create() error {
	_, cli, err := binaries()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterCreateTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs()...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("redistest: redis-cli --cluster create %s: %w; output:\n%s",
			strings.Join(c.Addrs(), " "), err, out)
	}
	return nil
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
				strings.Join(c.Addrs(), " "), timeout, err)
		}
		<-tick.C
	}
}

// check returns nil when every node reports cluster_state:ok, all slots
// assigned and ok, all three nodes known, and an identical, healthy view of
// the nodes and their slots.
func (c *Cluster) check() error {
	addrs := c.Addrs()
	var views []string
	for _, addr := range addrs {
		conn, err := dialRESP(addr, time.Second)
		if err != nil {
			return err
		}
		info, err := conn.do("CLUSTER", "INFO")
		if err == nil {
			err = checkClusterInfo(addr, info)
		}
		var nodes string
		if err == nil {
			nodes, err = conn.do("CLUSTER", "NODES")
		}
		conn.Close()
		if err != nil {
			return err
		}
		view, err := clusterView(addrs, nodes)
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		views = append(views, view)
	}
	for i, v := range views[1:] {
		if v != views[0] {
			return fmt.Errorf("nodes disagree:\n%s:\n%s\n%s:\n%s", addrs[0], views[0], addrs[i+1], v)
		}
	}
	return nil
}

// checkClusterInfo checks the CLUSTER INFO reply of the node at addr.
func checkClusterInfo(addr, info string) error {
	want := map[string]string{
		"cluster_state":          "ok",
		"cluster_slots_assigned": fmt.Sprint(clusterSlots),
		"cluster_slots_ok":       fmt.Sprint(clusterSlots),
		"cluster_known_nodes":    fmt.Sprint(clusterMasters),
		"cluster_size":           fmt.Sprint(clusterMasters),
	}
	for field, w := range want {
		if got, _ := infoField(info, field); got != w {
			return fmt.Errorf("%s: %s is %q, want %q", addr, field, got, w)
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
