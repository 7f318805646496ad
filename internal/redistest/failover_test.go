package redistest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// keyOn returns a key, starting with prefix, that the cluster's node s
// serves.
func keyOn(t *testing.T, cl *Cluster, s *Server, prefix string) string {
	t.Helper()
	for i := range maxNameTries {
		if k := fmt.Sprintf("%s-%d", prefix, i); cl.MasterOf(t, k) == s {
			return k
		}
	}
	t.Fatalf("no key found on %s", s.Addr())
	return ""
}

func TestStartClusterWithReplicas_gives_each_master_a_replica_in_sync(t *testing.T) {
	t.Parallel()
	cl := StartClusterWithReplicas(t)
	if n := len(cl.Servers()); n != 6 {
		t.Fatalf("%d servers, want 6", n)
	}
	top, err := cl.check()
	if err != nil {
		t.Fatal(err)
	}
	masters := slices.Clone(top.masters)
	slices.SortFunc(masters, func(a, b *Server) int { return strings.Compare(a.Addr(), b.Addr()) })
	want := cl.Servers()[:3]
	slices.SortFunc(want, func(a, b *Server) int { return strings.Compare(a.Addr(), b.Addr()) })
	if !slices.Equal(masters, want) {
		t.Fatalf("masters %v, want the first three servers", addrsOf(top.masters))
	}
	for i, m := range cl.Servers()[:3] {
		if r := top.replicaOf(m); r != cl.Servers()[3+i] {
			t.Fatalf("replica of %s is %v, want %s", m.Addr(), r, cl.Servers()[3+i].Addr())
		}
	}
	// A write reaches the replica: WAIT counts it.
	c := cl.Client(t)
	ctx := Ctx(t, waitTimeout)
	m := cl.Servers()[0]
	key := keyOn(t, cl, m, "k")
	if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cl.WaitReplicated(t)
	// The replica has it: READONLY lets its connection read its slots.
	rc := redis.NewClient(&redis.Options{Addr: cl.Servers()[3].Addr(), PoolSize: 1})
	defer rc.Close()
	if err := rc.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := rc.Get(ctx, key).Result(); err != nil || got != "v" {
		t.Fatalf("GET %s on the replica after WaitReplicated = %q, %v; want v", key, got, err)
	}
}

func TestCluster_Failover_and_KillMaster_hand_the_slots_to_the_replica(t *testing.T) {
	t.Parallel()
	cl := StartClusterWithReplicas(t)
	c := cl.Client(t)
	ctx := Ctx(t, 2*clusterReadyTimeout)
	m0, r0 := cl.Servers()[0], cl.Servers()[3]
	key := keyOn(t, cl, m0, "before")
	if err := c.Set(ctx, key, "1", 0).Err(); err != nil {
		t.Fatal(err)
	}

	// CLUSTER FAILOVER: the replica serves the slots, the old master
	// replicates it, and no write is lost.
	if got := cl.Failover(t, m0); got != r0 {
		t.Fatalf("Failover(%s) = %s, want its replica %s", m0.Addr(), got.Addr(), r0.Addr())
	}
	if got := cl.MasterOf(t, key); got != r0 {
		t.Fatalf("MasterOf(%s) after the failover = %s, want %s", key, got.Addr(), r0.Addr())
	}
	top, err := cl.check()
	if err != nil || top.masterOf[m0] != r0 {
		t.Fatalf("after the failover: %v; want %s a replica of %s", err, m0.Addr(), r0.Addr())
	}
	if got, err := c.Get(ctx, key).Result(); err != nil || got != "1" {
		t.Fatalf("GET %s through the same client after the failover = %q, %v", key, got, err)
	}
	if err := m0.Client(t).Set(ctx, key, "x", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED") {
		t.Fatalf("SET on the old master = %v, want MOVED", err)
	}

	// SIGKILL of the new master: the old one, now its replica, takes over
	// with what was replicated.
	if err := c.Set(ctx, key, "2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cl.WaitReplicated(t)
	if got := cl.KillMaster(t, r0); got != m0 {
		t.Fatalf("KillMaster(%s) = %s, want its replica %s", r0.Addr(), got.Addr(), m0.Addr())
	}
	if r0.running() {
		t.Fatalf("killed master %s still running", r0.Addr())
	}
	if got := cl.MasterOf(t, key); got != m0 {
		t.Fatalf("MasterOf(%s) after the kill = %s, want %s", key, got.Addr(), m0.Addr())
	}
	// The client learns of the new master when it reads its slot map
	// again, which lockkit asks for when a master cannot be reached (see
	// internal/slotmap): until then it dials the dead one.
	Eventually(t, clusterReadyTimeout, "the client to reach the new master", func() bool {
		got, err := c.Get(ctx, key).Result()
		if err == nil && got != "2" {
			t.Fatalf("GET %s through the same client after the kill = %q, want the replicated 2", key, got)
		}
		if err != nil {
			c.ReloadState(ctx)
		}
		return err == nil
	})
	if err := c.Set(ctx, key, "3", 0).Err(); err != nil {
		t.Fatalf("SET %s after the kill: %v", key, err)
	}
	// Every other master still works.
	for _, m := range cl.Servers()[1:3] {
		if err := c.Set(ctx, keyOn(t, cl, m, "other"), "v", 0).Err(); err != nil {
			t.Fatalf("SET on %s after the kill: %v", m.Addr(), err)
		}
	}
}

func TestCluster_KillMaster_of_a_master_without_replica_fails(t *testing.T) {
	t.Parallel()
	cl := StartCluster(t)
	m := cl.Servers()[0]
	wantFailure(t, func(tb testing.TB) { cl.KillMaster(tb, m) }, "master "+m.Addr()+" has no replica")
	if !m.running() {
		t.Fatal("KillMaster killed a master without replica")
	}
}

func TestSentinel_KillMaster_promotes_a_replica(t *testing.T) {
	t.Parallel()
	d := StartSentinel(t, 2, 3)
	c := d.FailoverClient(t)
	ctx := Ctx(t, waitTimeout+sentinelSettleTimeout)
	if err := c.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	d.WaitReplicated(t)

	old := d.Master()
	master := d.KillMaster(t)
	if !slices.Contains(d.Replicas(), master) {
		t.Fatalf("KillMaster returned %s, want one of the replicas %q", master.Addr(), addrsOf(d.Replicas()))
	}
	if old.running() {
		t.Fatalf("killed master %s still running", old.Addr())
	}
	// KillMaster returned once the other replica follows the new master.
	if err := d.checkReplication(master); err != nil {
		t.Fatal(err)
	}
	for key, val := range map[string]string{"after": "2"} {
		if err := c.Set(ctx, key, val, 0).Err(); err != nil {
			t.Fatalf("SET %s through the same client after the kill: %v", key, err)
		}
	}
	for key, want := range map[string]string{"before": "1", "after": "2"} {
		if got, err := c.Get(ctx, key).Result(); err != nil || got != want {
			t.Errorf("GET %s after the kill = %q, %v; want %q", key, got, err, want)
		}
	}
	if got, err := master.Client(t).Get(ctx, "after").Result(); err != nil || got != "2" {
		t.Errorf("GET on the new master = %q, %v; want the write made after the kill", got, err)
	}
}
