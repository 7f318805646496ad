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
	// cluster configuration after it was created, and after a failover.
	clusterReadyTimeout = 30 * time.Second
	// maxNameTries bounds how many names NamesOnDistinctMasters draws.
	maxNameTries = 1000
	// replicatedReloadInterval is how often the clients of a Cluster with
	// replicas reload the slot map (ClusterStateReloadInterval). go-redis
	// reloads it at once after a MOVED, which a coordinated failover
	// answers with, but a killed master answers nothing: with the default
	// of a minute, a client would go on dialing it for that long.
	replicatedReloadInterval = 500 * time.Millisecond
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
// replicas) the replica of each, in the same order. A failover changes
// who is master, not this order. Killing, stalling or restarting one of
// them affects the cluster as it would in production: a restarted node
// rejoins with its old slots and no data.
func (c *Cluster) Servers() []*Server { return slices.Clone(c.servers) }

// Client returns a new go-redis cluster client seeded with every node's
// address. It is closed in t.Cleanup. With replicas, it reloads the slot
// map every 500 ms rather than every minute, so that it finds the new
// master soon after [Cluster.KillMaster], as a production client tuned for
// failovers would.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	t.Helper()
	opts := &redis.ClusterOptions{Addrs: c.addrs()}
	if c.replicas {
		opts.ClusterStateReloadInterval = replicatedReloadInterval
	}
	cc := redis.NewClusterClient(opts)
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

// waitReady polls every node until all of them report a healthy cluster
// with the same view of nodes and slots, or timeout passes.
func (c *Cluster) waitReady(timeout time.Duration) error {
	return c.waitFor(timeout, func(*topology) error { return nil })
}

// await waits until the cluster is settled (see check) and cond accepts
// its view, or fails the test after clusterReadyTimeout.
func (c *Cluster) await(t testing.TB, cond func(*topology) error) {
	t.Helper()
	if err := c.waitFor(clusterReadyTimeout, cond); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls every node until all of them report a healthy cluster
// with the same view of nodes and slots (see check) and cond accepts that
// view, or timeout passes.
func (c *Cluster) waitFor(timeout time.Duration, cond func(*topology) error) error {
	err := settle(timeout, "the cluster", func() error {
		top, err := c.check()
		if err == nil {
			err = cond(top)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("redistest: cluster %s: %w", strings.Join(c.addrs(), " "), err)
	}
	return nil
}

// check returns the cluster's topology when every running node reports
// cluster_state:ok, all slots assigned and ok, every node known, and an
// identical view of the nodes and their slots, in which every running
// node is healthy and connected and every stopped node marked failed; and
// when every running replica's link to its master is up.
func (c *Cluster) check() (*topology, error) {
	var (
		views []string
		top   *topology
	)
	for _, s := range c.servers {
		if !s.running() {
			continue
		}
		info, nodes, err := clusterState(s.Addr())
		if err == nil {
			err = c.checkClusterInfo(info)
		}
		var view string
		if err == nil {
			view, top, err = c.view(nodes)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Addr(), err)
		}
		views = append(views, view)
		if len(views) > 1 && view != views[0] {
			return nil, fmt.Errorf("nodes disagree:\n%s\n%s:\n%s", views[0], s.Addr(), view)
		}
	}
	if top == nil {
		return nil, errors.New("no node is running")
	}
	for _, r := range top.replicas {
		info, err := replicationInfo(r)
		if err != nil {
			return nil, err
		}
		if link, _ := infoField(info, "master_link_status"); link != "up" {
			return nil, fmt.Errorf("replica %s: master link %q", r.Addr(), link)
		}
	}
	return top, nil
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
func (c *Cluster) checkClusterInfo(info string) error {
	for _, want := range [...]struct{ field, value string }{
		{"cluster_state", "ok"},
		{"cluster_slots_assigned", strconv.Itoa(clusterSlots)},
		{"cluster_slots_ok", strconv.Itoa(clusterSlots)},
		{"cluster_known_nodes", strconv.Itoa(len(c.servers))},
		{"cluster_size", strconv.Itoa(clusterMasters)},
	} {
		if got, _ := infoField(info, want.field); got != want.value {
			return fmt.Errorf("%s is %q, want %q", want.field, got, want.value)
		}
	}
	return nil
}

// topology is who is master and who replicates whom, as the nodes agree.
type topology struct {
	masters  []*Server           // running masters that serve slots
	replicas []*Server           // running replicas
	masterOf map[*Server]*Server // the master of each running replica
}

// replicaOf returns the running replica of master, or nil.
func (top *topology) replicaOf(master *Server) *Server {
	for r, m := range top.masterOf {
		if m == master {
			return r
		}
	}
	return nil
}

// isMaster reports whether s is a running master serving slots.
func (top *topology) isMaster(s *Server) bool { return slices.Contains(top.masters, s) }

// view turns a CLUSTER NODES reply into a canonical description of the
// cluster (id, address, role, master and slots of every node, sorted by
// id) so that the views of different nodes can be compared, and into the
// topology it describes. It fails if a node is unknown, if a running node
// is unhealthy or not connected, or if a stopped one is not marked failed.
func (c *Cluster) view(nodes string) (string, *topology, error) {
	type node struct {
		s        *Server
		role     string
		master   string // the id of its master, "-" for a master
		hasSlots bool
	}
	var lines []string
	byID := map[string]node{}
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		id, addr, flags, link := f[0], f[1], f[2], f[7]
		addr, _, _ = strings.Cut(addr, "@")
		i := slices.IndexFunc(c.servers, func(s *Server) bool { return s.Addr() == addr })
		if i < 0 {
			return "", nil, fmt.Errorf("unexpected node address %q in %q", addr, strings.TrimSpace(line))
		}
		s := c.servers[i]
		n := node{s: s, master: f[3], hasSlots: len(f) > 8}
		failed := false
		for flag := range strings.SplitSeq(flags, ",") {
			switch flag {
			case "master", "slave":
				n.role = flag
			case "fail":
				failed = true
			case "fail?", "handshake", "noaddr":
				if s.running() {
					return "", nil, fmt.Errorf("node %s is %s", addr, flags)
				}
			}
		}
		if !s.running() {
			if !failed {
				return "", nil, fmt.Errorf("stopped node %s is %s, not failed yet", addr, flags)
			}
			lines = append(lines, id+" "+addr+" failed")
			byID[id] = node{s: s, role: "failed"}
			continue
		}
		if failed || link != "connected" {
			return "", nil, fmt.Errorf("node %s is %s, link %s", addr, flags, link)
		}
		byID[id] = n
		lines = append(lines, strings.Join(append([]string{id, addr, n.role, n.master}, f[8:]...), " "))
	}
	if len(byID) != len(c.servers) {
		return "", nil, errors.New("not every node is known yet")
	}
	top := &topology{masterOf: map[*Server]*Server{}}
	for _, n := range byID {
		switch n.role {
		case "master":
			if n.hasSlots {
				top.masters = append(top.masters, n.s)
			}
		case "slave":
			m, ok := byID[n.master]
			if !ok || m.role != "master" {
				return "", nil, fmt.Errorf("replica %s of %s, not a running master", n.s.Addr(), n.master)
			}
			top.replicas = append(top.replicas, n.s)
			top.masterOf[n.s] = m.s
		}
	}
	if c.replicas && len(top.masters)+len(top.replicas) == len(c.servers) {
		for _, m := range top.masters {
			if top.replicaOf(m) == nil {
				return "", nil, fmt.Errorf("master %s has no replica", m.Addr())
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), top, nil
}

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

// MasterOf returns the node that serves key, as the nodes agree once the
// cluster is settled.
func (c *Cluster) MasterOf(t testing.TB, key string) *Server {
	t.Helper()
	var master *Server
	c.await(t, func(top *topology) error {
		rc := adminClient(top.masters[0].Addr())
		defer rc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		slot, err := rc.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			return err
		}
		ranges, err := rc.ClusterSlots(ctx).Result()
		if err != nil {
			return err
		}
		for _, r := range ranges {
			if int64(r.Start) <= slot && slot <= int64(r.End) && len(r.Nodes) > 0 {
				i := slices.IndexFunc(c.servers, func(s *Server) bool { return s.Addr() == r.Nodes[0].Addr })
				if i < 0 || !top.isMaster(c.servers[i]) {
					return fmt.Errorf("slot %d served by %s, not a master of the cluster", slot, r.Nodes[0].Addr)
				}
				master = c.servers[i]
				return nil
			}
		}
		return fmt.Errorf("no node serves slot %d", slot)
	})
	return master
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
