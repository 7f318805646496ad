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
)

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
		if err == nil {
			err = checkClusterSize(info, top)
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
	} {
		if got, _ := infoField(info, want.field); got != want.value {
			return fmt.Errorf("%s is %q, want %q", want.field, got, want.value)
		}
	}
	return nil
}

// checkClusterSize checks that a CLUSTER INFO reply counts as many
// masters serving slots as the view top: three, or more once a master
// added by [Cluster.AddMaster] serves some.
func checkClusterSize(info string, top *topology) error {
	want := strconv.Itoa(len(top.masters))
	if got, _ := infoField(info, "cluster_size"); got != want {
		return fmt.Errorf("cluster_size is %q, want %q", got, want)
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
