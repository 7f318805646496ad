package multilock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// wantNoHash fails the test unless the hash of lock name is absent on
// what rc talks to.
func wantNoHash(t *testing.T, rc redis.UniversalClient, name string) {
	t.Helper()
	key := core.NewKeys(lockkit.DefaultPrefix, name, false).Base
	if n, err := rc.Exists(redistest.Ctx(t, 10*time.Second), key).Result(); n != 0 || err != nil {
		t.Errorf("%s exists = %d, %v; want it gone", key, n, err)
	}
}

// TestRedLock_a_Cluster_is_one_node checks what the package documents of a
// Cluster in a RedLock: a Cluster client is one node, its part living on
// the master of the name's slot, beside two servers; names that hash
// oddly (braces, a newline) keep every key of the part in that slot. The
// lock excludes another owner, and its Unlock leaves no hold on any node.
func TestRedLock_a_Cluster_is_one_node(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	cc := redistest.StartCluster(t).Client(t)
	_, servers := masters(t, 2)
	nodes := lockkits(t, []redis.UniversalClient{cc, servers[0], servers[1]})
	for _, name := range []string{"}" + redistest.Unique(t), "{}" + redistest.Unique(t) + "}", "new\nline " + redistest.Unique(t)} {
		r := multilock.NewRedLock(nodes, name, multilock.WithNodeTimeout(time.Second))
		redistest.MustLock(t, r)
		if ok, err := multilock.NewRedLock(nodes, name, multilock.WithNodeTimeout(time.Second)).TryLock(ctx); ok || err != nil {
			t.Fatalf("%q: TryLock by another owner = %v, %v; want false", name, ok, err)
		}
		redistest.MustUnlock(t, r)
		wantNoHash(t, cc, name)
		wantNoHash(t, servers[0], name)
		wantNoHash(t, servers[1], name)
	}
}

// TestRedLock_over_the_masters_of_one_Cluster_gets_no_quorum checks what
// the package documents of the masters of one Cluster: they are not
// independent nodes, as a name's keys live on one of them and the others
// answer MOVED, so a RedLock over them fails with ErrQuorum naming MOVED,
// and takes no hold.
func TestRedLock_over_the_masters_of_one_Cluster_gets_no_quorum(t *testing.T) {
	cluster := redistest.StartCluster(t)
	var rcs []redis.UniversalClient
	for _, s := range cluster.Servers() {
		rcs = append(rcs, s.Client(t))
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, rcs), name, multilock.WithNodeTimeout(time.Second))
	ok, err := r.TryLock(redistest.Ctx(t, redistest.Hang))
	if ok || !errors.Is(err, lockkit.ErrQuorum) || !strings.Contains(err.Error(), "MOVED") {
		t.Fatalf("TryLock = %v, %v; want ErrQuorum naming MOVED", ok, err)
	}
	wantNoHash(t, cluster.Client(t), name)
}

// TestRedLock_over_three_Clusters_with_one_down: each of three Clusters is
// one node of a RedLock. The lock excludes another owner, and its Unlock
// leaves no hold on any Cluster. With every server of one Cluster killed,
// the two others still make a majority: a Lock takes it, another owner's
// TryLock is refused (not failed for want of a quorum), and so is a Lock
// of that owner until its ctx ends; once released, the other owner takes
// it.
func TestRedLock_over_three_Clusters_with_one_down(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	var clusters []*redistest.Cluster
	var rcs []redis.UniversalClient
	for range 3 {
		cl := redistest.StartCluster(t)
		clusters = append(clusters, cl)
		rcs = append(rcs, cl.Client(t))
	}
	nodes := lockkits(t, rcs)
	name := redistest.Unique(t)
	a := multilock.NewRedLock(nodes, name, multilock.WithNodeTimeout(time.Second))
	b := multilock.NewRedLock(nodes, name, multilock.WithNodeTimeout(time.Second))
	excludes := func(what string) {
		t.Helper()
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(ctx); ok || err != nil {
			t.Fatalf("%s: TryLock by another owner = %v, %v; want false, nil", what, ok, err)
		}
	}

	excludes("every Cluster up")
	redistest.MustUnlock(t, a)
	for _, rc := range rcs {
		wantNoHash(t, rc, name)
	}

	for _, s := range clusters[1].Servers() {
		s.Kill(t)
	}
	excludes("one Cluster down")
	err := b.Lock(redistest.Ctx(t, 300*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if errors.Is(err, lockkit.ErrQuorum) {
		t.Fatalf("b.Lock = %v; two of three nodes answered, so no quorum failure", err)
	}
	redistest.MustUnlock(t, a)
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, b)
	wantNoHash(t, rcs[0], name)
	wantNoHash(t, rcs[2], name)
}
