package failover_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestWithReplicaAck_failover_right_after_Lock_keeps_the_lock takes a lock
// of every kind the option applies to with WithReplicaAck (a Client
// default) and kills the master as soon as the last Lock returned, without
// waiting for the replicas: every hold survives the failover.
func TestWithReplicaAck_failover_right_after_Lock_keeps_the_lock(t *testing.T) {
	t.Parallel()
	for _, dep := range deployments {
		if !strings.HasSuffix(dep.name, "SIGKILL_master") {
			continue
		}
		t.Run(dep.name, func(t *testing.T) {
			t.Parallel()
			d := dep.start(t)
			rc := d.client(t)
			holders := redistest.Lockkit(t, rc, lockkit.WithReplicaAck(1, callTimeout))
			others := redistest.Lockkit(t, d.client(t))
			// The replicas are attached and caught up before the Locks:
			// WithReplicaAck waits for none on a master that has never had
			// a replica attached, which a master of a freshly started
			// deployment on a loaded machine can still be. The failover
			// still follows the last Lock at once.
			d.replicated(t)
			holds := lockEach(t, d, ackKinds(), holders)
			// What the master said of its replicas once the Locks were
			// acknowledged, for the failure messages below.
			repl := replicationOf(t, rc, holds[0].name)
			d.failover(t)
			// The holder's Unlock is to reach the new master at once (a
			// multi-lock's, called again after one that reached only some
			// of its members, reports the others not held).
			d.follow(t, rc)
			for _, h := range holds {
				t.Run(h.k.name, func(t *testing.T) {
					t.Parallel()
					if tryLockAfter(t, h.k.waiter(others, h.name)) {
						t.Fatalf("another owner took the lock after the failover: the acknowledged hold was lost; the master's INFO replication after the Locks:\n%s", repl)
					}
					if redistest.AnyClosed(h.lost) {
						t.Fatalf("the acknowledged hold was reported lost; the master's INFO replication after the Locks:\n%s", repl)
					}
					retry(t, "the holder's Unlock", h.holder.Unlock)
				})
			}
		})
	}
}

// TestWithReplicaAck_shortfall_undoes_the_acquire stalls the only replica
// of the lock's master: an acquire with WithReplicaAck then fails with
// ErrReplicaAck, saying that none of the one replica acknowledged, and
// leaves the lock free. (Lock would return the same error, except for a
// multi-lock, which tries again until its ctx ends.)
func TestWithReplicaAck_shortfall_undoes_the_acquire(t *testing.T) {
	t.Parallel()
	cl := redistest.StartClusterWithReplicas(t)
	master, replica := cl.Servers()[0], cl.Servers()[3]
	d := cluster(t, cl, func(testing.TB, *redistest.Server) {})
	lc := redistest.Lockkit(t, d.client(t))
	type tryCase struct {
		k    kind
		name string
	}
	var cases []tryCase
	for _, k := range ackKinds() {
		cases = append(cases, tryCase{k, pickName(t, k, d)})
	}
	if got := cl.MasterOf(t, "{"+cases[0].name+"}"); got != master {
		t.Fatalf("lock on %s, want %s", got.Addr(), master.Addr())
	}
	// Warm up: the client loads the slot map now, not from the stalled
	// replica (its first command would wait for the stall to end), and
	// every lock works without the option.
	for _, tc := range cases {
		m := tc.k.holder(lc, tc.name)
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
	}
	replica.Stall(t, 5*time.Second)
	for _, tc := range cases {
		m := tc.k.holder(lc, tc.name, lockkit.WithReplicaAck(1, 50*time.Millisecond))
		ok, err := m.TryLock(redistest.Ctx(t, callTimeout))
		if !shortfall(t, tc.k.name+": TryLock with the replica stalled", ok, err, "0 of 1") || !takesFree(t, tc.k.waiter(lc, tc.name), tc.k.name+"'s shortfall") {
			t.FailNow()
		}
	}
}

// TestWithReplicaAck_waits_for_a_replica_cut_off: a master whose only
// replica is no longer attached still has a replica that a failover could
// promote (one that a failover already promoted, while the master runs on
// unaware, or one that is down and may come back): an acquire with
// WithReplicaAck waits for it and fails with ErrReplicaAck, leaving the
// lock free, instead of taking a hold that such a failover would lose.
func TestWithReplicaAck_waits_for_a_replica_cut_off(t *testing.T) {
	t.Parallel()
	cuts := []struct {
		name string
		cut  func(t *testing.T, replica *redistest.Server)
	}{
		{"promoted away", func(t *testing.T, replica *redistest.Server) {
			if err := replica.Client(t).ReplicaOf(t.Context(), "no", "one").Err(); err != nil {
				t.Fatalf("REPLICAOF NO ONE: %v", err)
			}
		}},
		{"killed", func(t *testing.T, replica *redistest.Server) { replica.Kill(t) }},
	}
	for _, cut := range cuts {
		t.Run(cut.name, func(t *testing.T) {
			t.Parallel()
			master, replica := redistest.StartServer(t), redistest.StartServer(t)
			mc := master.Client(t)
			host, port, _ := strings.Cut(master.Addr(), ":")
			if err := replica.Client(t).ReplicaOf(t.Context(), host, port).Err(); err != nil {
				t.Fatalf("REPLICAOF: %v", err)
			}
			redistest.Eventually(t, settleBound, "the replica online at the master", func() bool {
				info, err := mc.Info(t.Context(), "replication").Result()
				return err == nil && strings.Contains(info, "state=online")
			})
			cut.cut(t, replica)
			redistest.Eventually(t, settleBound, "the master without a replica", func() bool {
				info, err := mc.Info(t.Context(), "replication").Result()
				return err == nil && strings.Contains(info, "connected_slaves:0")
			})
			lc := redistest.Lockkit(t, mc)
			for _, k := range ackKinds() {
				name := redistest.Unique(t)
				ok, err := k.holder(lc, name, lockkit.WithReplicaAck(1, 50*time.Millisecond)).TryLock(redistest.Ctx(t, callTimeout))
				if !shortfall(t, k.name+": TryLock", ok, err, "0 of 1") || !takesFree(t, k.waiter(lc, name), k.name+"'s shortfall") {
					t.FailNow()
				}
			}
		})
	}
}

// TestWithReplicaAck_is_skipped_without_replicas: on a server with no
// replica, a Lock with WithReplicaAck returns at once, as without it (it
// would otherwise wait for an hour).
func TestWithReplicaAck_is_skipped_without_replicas(t *testing.T) {
	t.Parallel()
	lc := redistest.Lockkit(t, redistest.StartServer(t).Client(t), lockkit.WithReplicaAck(2, time.Hour))
	for _, k := range ackKinds() {
		m := k.holder(lc, redistest.Unique(t))
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
	}
}

func TestWithReplicaAck_invalid_returns_ErrInvalid(t *testing.T) {
	t.Parallel()
	_, rc := redistest.Mini(t)
	lc := redistest.Lockkit(t, rc)
	cases := []struct {
		name string
		lock lockkit.Locker
	}{
		{"no replicas", reentrant.New(lc, "x", lockkit.WithReplicaAck(0, time.Second))},
		{"negative replicas", reentrant.New(lc, "x", lockkit.WithReplicaAck(-1, time.Second))},
		{"zero timeout", reentrant.New(lc, "x", lockkit.WithReplicaAck(1, 0))},
		{"sub-millisecond timeout", reentrant.New(lc, "x", lockkit.WithReplicaAck(1, time.Microsecond))},
		{"a RedLock", multilock.NewRedLock([]*lockkit.Client{lc}, "x", lockkit.WithReplicaAck(1, time.Second))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.lock.Lock(redistest.Ctx(t, callTimeout))
			if !errors.Is(err, lockkit.ErrInvalid) || !strings.Contains(err.Error(), "WithReplicaAck") {
				t.Fatalf("Lock = %v, want ErrInvalid naming WithReplicaAck", err)
			}
		})
	}
}

// replicationOf returns the INFO replication section of the master that
// keeps the lock name on rc (the key's master on a Cluster client), or why
// it could not be read.
func replicationOf(t *testing.T, rc redis.UniversalClient, name string) string {
	ctx := redistest.Ctx(t, callTimeout)
	var master redis.Cmdable = rc
	if cc, ok := rc.(*redis.ClusterClient); ok {
		m, err := cc.MasterForKey(ctx, "{"+name+"}")
		if err != nil {
			return fmt.Sprintf("(no master for %q: %v)", name, err)
		}
		master = m
	}
	info, err := master.Info(ctx, "replication").Result()
	if err != nil {
		return fmt.Sprintf("(INFO replication: %v)", err)
	}
	return info
}
