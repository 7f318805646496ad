package failover_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_stalled_replica_on_Sentinel_and_Cluster stalls the
// only replica of the lock's master, on a Sentinel deployment (through a
// failover client) and on a Cluster, and takes a lock of every kind
// WithReplicaAck applies to meanwhile:
//
//   - a TryLock whose replicas do not acknowledge within the timeout fails
//     with ErrReplicaAck saying none of the one replica did;
//   - a Lock whose ctx deadline comes before the timeout returns at its
//     deadline with ErrNotObtained and context.DeadlineExceeded;
//
// and either way another owner can take the lock at once.
func TestWithReplicaAck_stalled_replica_on_Sentinel_and_Cluster(t *testing.T) {
	t.Parallel()
	type topology struct {
		name string
		// start returns a client of the deployment, the replica of the
		// master of every lock name pick returns, and pick.
		start func(t *testing.T) (rc redis.UniversalClient, replica *redistest.Server, pick func(t *testing.T, k kind) string)
	}
	topologies := []topology{
		{"sentinel", func(t *testing.T) (redis.UniversalClient, *redistest.Server, func(*testing.T, kind) string) {
			d := redistest.StartSentinel(t, 1, 3)
			return d.FailoverClient(t), d.Replicas()[0], func(t *testing.T, _ kind) string { return redistest.Unique(t) }
		}},
		{"cluster", func(t *testing.T) (redis.UniversalClient, *redistest.Server, func(*testing.T, kind) string) {
			cl := redistest.StartClusterWithReplicas(t)
			d := cluster(t, cl, func(testing.TB, *redistest.Server) {})
			return d.client(t), cl.Servers()[3], func(t *testing.T, k kind) string { return pickName(t, k, d) }
		}},
	}
	const stall = 10 * time.Second
	for _, top := range topologies {
		t.Run(top.name, func(t *testing.T) {
			t.Parallel()
			rc, replica, pick := top.start(t)
			lc := redistest.Lockkit(t, rc)
			type named struct {
				k          kind
				short, ctx string // the lock names of the two checks
			}
			var ns []named
			for _, k := range ackKinds() {
				n := named{k, pick(t, k), pick(t, k)}
				// Warm up: the client knows the deployment now, not from
				// the stalled replica, and the lock works without the
				// option.
				for _, name := range []string{n.short, n.ctx} {
					m := k.holder(lc, name)
					redistest.MustLock(t, m)
					redistest.MustUnlock(t, m)
				}
				ns = append(ns, n)
			}
			replica.Stall(t, stall)
			stalled := time.Now()
			// One kind after another: parallel subtests could wait for
			// other tests past the stall.
			t.Run("kinds", func(t *testing.T) {
				for _, n := range ns {
					t.Run(n.k.name, func(t *testing.T) {
						m := n.k.holder(lc, n.short, lockkit.WithReplicaAck(1, ackTimeoutShort))
						ok, err := m.TryLock(redistest.Ctx(t, callTimeout))
						if shortfall(t, "TryLock", ok, err, "0 of 1") {
							takesFree(t, n.k.waiter(lc, n.short), "the shortfall")
						}
						ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
						defer cancel()
						err = n.k.holder(lc, n.ctx, lockkit.WithReplicaAck(1, ackWait)).Lock(ctx)
						deadline, _ := ctx.Deadline()
						if late := time.Since(deadline); !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) || late > ackWait/4 {
							t.Errorf("Lock with a deadline = %v, %v after the deadline; want ErrNotObtained and DeadlineExceeded at once", err, late)
						} else {
							takesFree(t, n.k.waiter(lc, n.ctx), "the deadline")
						}
					})
				}
			})
			if time.Since(stalled) >= stall {
				t.Fatalf("the checks outlasted the replica's stall (%v): raise it for this machine", stall)
			}
		})
	}
}
