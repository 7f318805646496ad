package lockkit_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// poolLease is the watchdog timeout of the pool tests: renewed every
// 100 ms, so that renewals keep wanting a connection.
const poolLease = 300 * time.Millisecond

// TestPoolSize_1_and_2_goroutines_lock_wait_and_renew_without_deadlock runs
// every kind through a go-redis client whose pool has one or two
// connections, shared by two lockkit Clients (see takeTurns). The
// watchdog's renewals, the waiters' attempts, the inspection calls and the
// notifier all get a connection in turn: every goroutine gets the lock
// twice, one at a time, well within the deadline.
func TestPoolSize_1_and_2_goroutines_lock_wait_and_renew_without_deadlock(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, size := range []int{1, 2} {
		t.Run(fmt.Sprintf("PoolSize_%d", size), func(t *testing.T) {
			for _, k := range configKinds {
				if k.kind == "latch" {
					continue // nothing to take in turn
				}
				t.Run(k.kind, func(t *testing.T) {
					t.Parallel()
					rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: size})
					t.Cleanup(func() { _ = rc.Close() })
					takeTurns(t, k, rc)
				})
			}
		})
	}
}

// TestPoolSize_1_with_WithReplicaAck_on_Sentinel_takes_turns_without_deadlock
// is the test above with one connection to a Sentinel master with a
// replica and WithReplicaAck, whose acquires keep a connection of their
// own while the master waits for the replica (WAIT), for the kinds that
// take the option.
func TestPoolSize_1_with_WithReplicaAck_on_Sentinel_takes_turns_without_deadlock(t *testing.T) {
	d := redistest.StartSentinel(t, 1, 1)
	for _, k := range configKinds {
		switch k.kind {
		case "reentrant", "cohort", "fair", "spin", "rwlock", "multilock":
		default:
			continue // WithReplicaAck does not apply
		}
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			rc := redis.NewFailoverClient(&redis.FailoverOptions{
				MasterName: d.MasterName(), SentinelAddrs: d.SentinelAddrs(), PoolSize: 1,
			})
			t.Cleanup(func() { _ = rc.Close() })
			takeTurns(t, k, rc, lockkit.WithReplicaAck(1, time.Second))
		})
	}
}

// takeTurns has four goroutines, on two lockkit Clients of rc (with
// opts), take k's lock twice each, one at a time, each keeping its hold
// until the watchdog renewed it while the others wait.
func takeTurns(t *testing.T, k contended, rc redis.UniversalClient, opts ...lockkit.Option) {
	t.Helper()
	const goroutines, rounds = 4, 2
	var renewals atomic.Int64
	opts = append(opts, lockkit.WithWatchdogTimeout(poolLease),
		lockkit.WithTrace(&lockkit.Trace{Renewed: func(lockkit.RenewInfo) { renewals.Add(1) }}))
	clients := []*lockkit.Client{redistest.Lockkit(t, rc, opts...), redistest.Lockkit(t, rc, opts...)}
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	var inside atomic.Int64
	var g errgroup.Group
	for i := range goroutines {
		g.Go(func() error {
			for range rounds {
				release, err := k.hold(ctx, clients[i%2], name)
				if err != nil {
					return err
				}
				if n := inside.Add(1); n != 1 {
					return fmt.Errorf("%d holders at once", n)
				}
				if err := renewedSince(ctx, &renewals, renewals.Load()); err != nil {
					return err
				}
				inside.Add(-1)
				if err := release(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// renewedSince waits until renewals has counted past from, or ctx ends.
func renewedSince(ctx context.Context, renewals *atomic.Int64, from int64) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for renewals.Load() <= from {
		select {
		case <-ctx.Done():
			return fmt.Errorf("no renewal: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}
