package redistest

import (
	"fmt"
	"strconv"
	"testing"
)

// This file holds what the Sentinel and Cluster deployments share about
// replication: waiting until the replicas have caught up.

// replOffset returns an offset of the INFO replication section of s:
// master_repl_offset (what s has written to its replication stream) or
// slave_repl_offset (what a replica has processed of its master's).
func replOffset(s *Server, field string) (int64, error) {
	info, err := replicationInfo(s)
	if err != nil {
		return 0, err
	}
	v, ok := infoField(info, field)
	if !ok {
		return 0, fmt.Errorf("%s: no %s in INFO replication", s.Addr(), field)
	}
	return strconv.ParseInt(v, 10, 64)
}

// waitCaughtUp waits until every one of replicas has processed everything
// master had written when it was called: a failover after it returns loses
// none of those writes. (WAIT would not do: it waits for the writes of its
// own connection only.)
func waitCaughtUp(master *Server, replicas []*Server) error {
	off, err := replOffset(master, "master_repl_offset")
	if err != nil {
		return err
	}
	for _, r := range replicas {
		if err := settle(clusterReadyTimeout, "replica "+r.Addr()+" to catch up", func() error {
			got, err := replOffset(r, "slave_repl_offset")
			if err == nil && got < off {
				err = fmt.Errorf("at offset %d of %d", got, off)
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// WaitReplicated returns once every running replica has processed what
// its master had written when WaitReplicated was called, so that a
// failover after it loses none of those writes.
func (c *Cluster) WaitReplicated(t testing.TB) {
	t.Helper()
	var top *topology
	c.await(t, func(tp *topology) error { top = tp; return nil })
	for _, m := range top.masters {
		if r := top.replicaOf(m); r != nil {
			if err := waitCaughtUp(m, []*Server{r}); err != nil {
				t.Fatalf("redistest: WaitReplicated: %v", err)
			}
		}
	}
}

// WaitReplicated returns once every running replica has processed what
// the master had written when WaitReplicated was called, so that a
// failover after it loses none of those writes.
func (d *Sentinel) WaitReplicated(t testing.TB) {
	t.Helper()
	sc := sentinelAdmin(d.sentinels[0].Addr())
	defer sc.Close()
	addr, err := masterAddr(Ctx(t, probeTimeout), sc)
	if err != nil {
		t.Fatalf("redistest: WaitReplicated: %v", err)
	}
	var master *Server
	var replicas []*Server
	for _, s := range d.servers() {
		switch {
		case s.Addr() == addr:
			master = s
		case s.running():
			replicas = append(replicas, s)
		}
	}
	if master == nil {
		t.Fatalf("redistest: WaitReplicated: the sentinels name %s the master, not a server of the deployment", addr)
	}
	if err := waitCaughtUp(master, replicas); err != nil {
		t.Fatalf("redistest: WaitReplicated: %v", err)
	}
}
